"""read_many_files: several files (paths, folders, globs) concatenated for the model; also expands @mentions."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from typing import Any

from agent_lsp.errors import PathOutsideWorkspace
from agent_lsp.events import Location
from agent_lsp.model.base import Part
from agent_lsp.tools.base import ContextTool, OutputSink, ToolInvocation, ToolResult
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.file_utils import MAX_LINES_PER_READ, glob_problem, has_glob, shown
from agent_lsp.tools.ls import FILTER_OPTIONS_SCHEMA
from agent_lsp.tools.read_many_collect import DEFAULT_EXCLUDED_DIRS, DEFAULT_EXCLUDED_NAMES, Collected, collect
from agent_lsp.tools.read_many_load import MAX_FILES, MAX_TOTAL_CHARS, Loaded, load
from agent_lsp.tools.read_many_mentions import read_path_for_command, read_paths_for_prompt

# Split by job: read_many_collect (which files), read_many_load (reading them into parts), read_many_mentions
# (@path expansion, which shares both). The names stay importable from here, where the runtime finds them.
__all__ = [
    "DEFAULT_EXCLUDED_DIRS",
    "DEFAULT_EXCLUDED_NAMES",
    "MAX_FILES",
    "MAX_TOTAL_CHARS",
    "Collected",
    "Loaded",
    "ReadManyFilesInvocation",
    "ReadManyFilesTool",
    "ReadManyParams",
    "collect",
    "load",
    "read_path_for_command",
    "read_paths_for_prompt",
]


@dataclass(frozen=True)
class ReadManyParams:
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    recursive: bool
    use_default_excludes: bool
    respect_git: bool | None
    respect_gemini: bool | None


class ReadManyFilesTool(ContextTool):
    name = "read_many_files"
    display_name = "ReadManyFiles"
    kind = "read"
    description = (
        "Reads several files at once and returns them concatenated, each introduced by a '--- <absolute path> ---' "
        "line. `include` takes file paths, folders (read recursively) and globs such as 'src/**/*.ts' or '*.md' "
        "(a glob without '/' matches at any depth). Skips files matched by .gitignore / .geminiignore, binary "
        "files, and by default dependency / build folders (node_modules, dist, build, .venv, ...) and lock "
        f"files. Images and PDFs are included only when named explicitly or by extension. Each file is cut at "
        f"{MAX_LINES_PER_READ} lines; at most {MAX_FILES} files per call. Use it to take in a set of related files; "
        "use read_file for a single file."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "include": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "description": "Paths, folders or globs to read, relative to the workspace root or absolute, "
                "e.g. ['src/**/*.py', 'README.md'].",
            },
            "exclude": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Optional: globs of paths to leave out, e.g. ['**/*.test.ts', 'fixtures'].",
            },
            "recursive": {"type": "boolean", "description": "Optional: descend into folders. Default true."},
            "useDefaultExcludes": {
                "type": "boolean",
                "description": "Optional: skip dependency / build folders and lock files. Default true.",
            },
            "file_filtering_options": FILTER_OPTIONS_SCHEMA,
        },
        "required": ["include"],
    }

    def check(self, params: dict[str, Any]) -> str | None:
        include = [p for p in params["include"] if p.strip()]
        if not include:
            return "include must name at least one path or glob."
        for pattern in [p.strip().removeprefix("@") for p in include if has_glob(p)] + list(
            params.get("exclude") or ()
        ):
            problem = glob_problem(pattern.strip("/"))
            if problem:
                return problem
        return None

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        options = params.get("file_filtering_options") or {}
        return ReadManyFilesInvocation(
            self.ctx,
            ReadManyParams(
                include=tuple(p for p in params["include"] if p.strip()),
                exclude=tuple(params.get("exclude") or ()),
                recursive=bool(params.get("recursive", True)),
                use_default_excludes=bool(params.get("useDefaultExcludes", True)),
                respect_git=options.get("respect_git_ignore"),
                respect_gemini=options.get("respect_gemini_ignore"),
            ),
        )


class ReadManyFilesInvocation(ToolInvocation[ReadManyParams]):
    def __init__(self, ctx: ToolContext, params: ReadManyParams) -> None:
        super().__init__(params)
        self.ctx = ctx

    def describe(self) -> str:
        shown_list = ", ".join(self.params.include[:5]) + (", ..." if len(self.params.include) > 5 else "")
        return f"Read files: {shown_list}"

    def locations(self) -> list[Location]:
        out: list[Location] = []
        for entry in self.params.include:
            if not has_glob(entry):
                try:
                    out.append(Location(str(self.ctx.workspace.resolve(entry))))
                except PathOutsideWorkspace:
                    continue
        return out

    async def execute(self, output: OutputSink) -> ToolResult:
        p = self.params
        stop = threading.Event()
        try:
            found = await asyncio.to_thread(
                collect,
                self.ctx,
                list(p.include),
                p.exclude,
                recursive=p.recursive,
                use_default_excludes=p.use_default_excludes,
                respect_git=p.respect_git,
                respect_gemini=p.respect_gemini,
                stop=stop,
            )
        finally:
            stop.set()
        loaded = await load(self.ctx, found.files, "--- {path} ---\n\n")
        skipped = found.skipped + loaded.skipped
        notes: list[str] = [f"- {what}: {why}" for what, why in skipped]
        if found.ignored:
            notes.append(f"- {found.ignored} file(s) or folder(s) ignored by .gitignore / .geminiignore")
        if not loaded.read:
            text = "No files matching the criteria were found or all were skipped."
            if notes:
                text += "\nSkipped:\n" + "\n".join(notes)
            return ToolResult(llm_content=text, display=text)
        parts: list[Part] = []
        for part in loaded.parts:
            parts.append(Part(text=part.text + "\n\n") if part.text is not None and part.text.strip() else part)
        parts.append(Part(text="--- End of content ---"))
        if notes:
            parts.append(Part(text="\nSkipped:\n" + "\n".join(notes)))
        display_lines = [f"Read **{len(loaded.read)}** file(s):"]
        display_lines += [f"- `{shown(self.ctx, f)}`" for f in loaded.read[:10]]
        if len(loaded.read) > 10:
            display_lines.append(f"- ...and {len(loaded.read) - 10} more")
        if notes:
            display_lines.append(f"\nSkipped {len(notes)}:")
            display_lines += notes[:10]
        return ToolResult(
            llm_content=parts, display="\n".join(display_lines), touched_paths=tuple(str(f) for f in loaded.read)
        )
