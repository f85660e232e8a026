"""list_directory: the entries of one folder, folders first, honouring the ignore files."""

from __future__ import annotations

import asyncio
import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_lsp.errors import ToolError
from agent_lsp.events import Location
from agent_lsp.tools.base import ContextTool, OutputSink, ToolInvocation, ToolResult
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.file_utils import ignore_filter, path_problem, resolve, shown

FILTER_OPTIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Optional: whether to hide entries matched by .gitignore / .geminiignore (both default true).",
    "properties": {
        "respect_git_ignore": {"type": "boolean", "description": "Hide entries matched by .gitignore."},
        "respect_gemini_ignore": {"type": "boolean", "description": "Hide entries matched by .geminiignore."},
    },
}


@dataclass(frozen=True)
class ListParams:
    path: Path
    ignore: tuple[str, ...]
    respect_git: bool | None
    respect_gemini: bool | None


@dataclass(frozen=True)
class Listing:
    dirs: list[str]
    files: list[str]
    ignored: int


class ListDirectoryTool(ContextTool):
    name = "list_directory"
    display_name = "ReadFolder"
    kind = "read"
    description = (
        "Lists the files and folders directly inside one folder of the workspace (not recursive). Folders are "
        "listed first, marked [DIR], then files, each group in alphabetical order. Entries matched by .gitignore "
        "or .geminiignore are hidden and counted. Use glob to find files by name pattern across folders, and "
        "grep_search to find text inside files."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "dir_path": {
                "type": "string",
                "description": "The folder to list: an absolute path, or a path relative to the workspace root.",
            },
            "ignore": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Optional: glob patterns of entry names to leave out, e.g. ['*.log', 'tmp*'].",
            },
            "file_filtering_options": FILTER_OPTIONS_SCHEMA,
        },
        "required": ["dir_path"],
    }

    def check(self, params: dict[str, Any]) -> str | None:
        options = params.get("file_filtering_options") or {}
        for key in ("respect_git_ignore", "respect_gemini_ignore"):
            if options.get(key) is not None and not isinstance(options[key], bool):
                return f"params/file_filtering_options/{key} must be boolean"
        return path_problem(self.ctx, params["dir_path"])

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        options = params.get("file_filtering_options") or {}
        return ListDirectoryInvocation(
            self.ctx,
            ListParams(
                path=resolve(self.ctx, params["dir_path"]),
                ignore=tuple(params.get("ignore") or ()),
                respect_git=options.get("respect_git_ignore"),
                respect_gemini=options.get("respect_gemini_ignore"),
            ),
        )


class ListDirectoryInvocation(ToolInvocation[ListParams]):
    def __init__(self, ctx: ToolContext, params: ListParams) -> None:
        super().__init__(params)
        self.ctx = ctx

    def describe(self) -> str:
        return f"List {shown(self.ctx, self.params.path)}"

    def locations(self) -> list[Location]:
        return [Location(str(self.params.path))]

    def _list(self) -> Listing:
        p = self.params
        flt = ignore_filter(self.ctx, p.path, p.respect_git, p.respect_gemini)
        dirs: list[str] = []
        files: list[str] = []
        ignored = 0
        with os.scandir(p.path) as it:
            entries = list(it)
        for entry in entries:
            try:
                is_dir = entry.is_dir()  # a link to a folder lists as a folder, like ls does
            except OSError:
                is_dir = False
            path = Path(entry.path)
            if any(fnmatch.fnmatch(entry.name, g) for g in p.ignore) or flt.is_ignored(path, is_dir):
                ignored += 1
                continue
            (dirs if is_dir else files).append(entry.name)
        dirs.sort(key=str.lower)
        files.sort(key=str.lower)
        return Listing(dirs, files, ignored)

    async def execute(self, output: OutputSink) -> ToolResult:
        p = self.params
        where = shown(self.ctx, p.path)
        if not p.path.exists():
            raise ToolError(f"Directory not found: {where}", "file_not_found")
        if not p.path.is_dir():
            raise ToolError(f"{where} is a file, not a directory; use read_file to read it.", "not_a_directory")
        try:
            listing = await asyncio.to_thread(self._list)
        except OSError as exc:
            raise ToolError(f"Cannot list {where}: {exc.strerror or exc}", "read_error") from exc
        note = f"({listing.ignored} ignored)" if listing.ignored else ""
        count = len(listing.dirs) + len(listing.files)
        if count == 0:
            text = f"Directory {p.path} is empty." + (f"\n\n{note}" if note else "")
            return ToolResult(llm_content=text, display=f"{where} is empty {note}".strip())
        lines = [f"[DIR] {d}" for d in listing.dirs] + listing.files
        text = f"Directory listing for {p.path}:\n" + "\n".join(lines) + (f"\n\n{note}" if note else "")
        display = f"Listed {count} item(s) {note}".strip()
        return ToolResult(llm_content=text, display=display, touched_paths=(str(p.path),))
