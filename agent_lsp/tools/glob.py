"""glob: find files by path pattern, recently modified ones first, honouring the ignore files."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_lsp.errors import PathOutsideWorkspace, ToolError
from agent_lsp.events import Location
from agent_lsp.tools.base import ContextTool, OutputSink, ToolInvocation, ToolResult
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.file_utils import (
    glob_problem,
    glob_regex,
    ignore_filter,
    path_problem,
    rel_posix,
    resolve,
    shown,
    split_glob,
)

RECENT_SECONDS = 24 * 3600
MAX_RESULTS = 2000


@dataclass(frozen=True)
class GlobParams:
    pattern: str
    bases: tuple[Path, ...]
    case_sensitive: bool
    respect_git: bool | None
    respect_gemini: bool | None


@dataclass
class GlobMatches:
    files: list[tuple[Path, float]] = field(default_factory=list)  # (path, mtime)
    ignored: int = 0


class GlobTool(ContextTool):
    name = "glob"
    display_name = "FindFiles"
    kind = "search"
    description = (
        "Finds files whose path matches a glob pattern, such as '**/*.py', 'src/**/*.{ts,tsx}' or 'docs/*.md'. "
        "Patterns are relative to dir_path (default: every workspace folder); '*' stays within one folder and "
        "'**' crosses folders, so '*.py' only matches files directly in dir_path. Returns absolute paths: files "
        "changed in the last 24 hours first (newest first), then the rest alphabetically. Files matched by "
        ".gitignore / .geminiignore are left out and counted. Use it to locate files before reading them."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "The glob pattern, e.g. '**/*.py' or 'src/**/test_*.py'."},
            "dir_path": {
                "type": "string",
                "description": "Optional: the folder to search in (absolute, or relative to the workspace root). "
                "Defaults to all workspace folders.",
            },
            "case_sensitive": {"type": "boolean", "description": "Optional: match case exactly. Default false."},
            "respect_git_ignore": {
                "type": "boolean",
                "description": "Optional: leave out files matched by .gitignore. Default true.",
            },
            "respect_gemini_ignore": {
                "type": "boolean",
                "description": "Optional: leave out files matched by .geminiignore. Default true.",
            },
        },
        "required": ["pattern"],
    }

    def check(self, params: dict[str, Any]) -> str | None:
        pattern: str = params["pattern"]
        if not pattern.strip():
            return "The pattern must not be empty."
        problem = glob_problem(pattern)
        if problem:
            return problem
        if params.get("dir_path"):
            problem = path_problem(self.ctx, params["dir_path"])
            if problem:
                return problem
        try:
            self._bases(params)
        except PathOutsideWorkspace as exc:
            return str(exc)
        return None

    def _bases(self, params: dict[str, Any]) -> tuple[tuple[Path, ...], str]:
        """The folders to search and the pattern relative to them; a literal folder prefix of the pattern
        (``src/`` in ``src/**/*.py``, or an absolute path) is resolved through the workspace so it cannot escape."""
        pattern: str = params["pattern"]
        bases = (resolve(self.ctx, params["dir_path"]),) if params.get("dir_path") else self.ctx.workspace.roots
        prefix, rest = split_glob(pattern)
        if os.path.isabs(pattern):
            return (resolve(self.ctx, prefix or "/"),), rest
        if prefix:
            moved = tuple(resolve(self.ctx, str(b / prefix)) for b in bases)
            # A prefix that does not exist as written may still match case-insensitively: keep the full pattern.
            if all(m.is_dir() for m in moved):
                return moved, rest
        return tuple(bases), pattern

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        bases, pattern = self._bases(params)
        return GlobInvocation(
            self.ctx,
            GlobParams(
                pattern=pattern,
                bases=bases,
                case_sensitive=bool(params.get("case_sensitive", False)),
                respect_git=params.get("respect_git_ignore"),
                respect_gemini=params.get("respect_gemini_ignore"),
            ),
            params["pattern"],
        )


def find_matches(
    ctx: ToolContext,
    base: Path,
    pattern: str,
    *,
    case_sensitive: bool,
    respect_git: bool | None = None,
    respect_gemini: bool | None = None,
    stop: threading.Event | None = None,
) -> GlobMatches:
    """Files under ``base`` whose ``/``-separated path relative to ``base`` matches ``pattern`` (blocking)."""
    regex = glob_regex(pattern, case_sensitive)
    found = GlobMatches()
    flt = ignore_filter(ctx, base, respect_git, respect_gemini)
    depth = None if "**" in pattern else pattern.count("/")

    def count_ignored(path: Path, is_dir: bool) -> None:
        if not is_dir and regex.fullmatch(rel_posix(path, base)):
            found.ignored += 1

    for path in flt.walk(base, max_depth=depth, on_ignored=count_ignored, should_stop=stop.is_set if stop else None):
        if regex.fullmatch(rel_posix(path, base)):
            try:
                mtime = path.stat().st_mtime
            except OSError:
                continue
            found.files.append((path, mtime))
    return found


def order_by_recency(files: list[tuple[Path, float]], now: float | None = None) -> list[Path]:
    """Files changed within the last 24 h first (newest first), then the rest by path."""
    cutoff = (now if now is not None else time.time()) - RECENT_SECONDS
    recent = sorted((f for f in files if f[1] >= cutoff), key=lambda f: (-f[1], str(f[0])))
    older = sorted((f for f in files if f[1] < cutoff), key=lambda f: str(f[0]))
    return [p for p, _ in recent + older]


class GlobInvocation(ToolInvocation[GlobParams]):
    def __init__(self, ctx: ToolContext, params: GlobParams, original_pattern: str) -> None:
        super().__init__(params)
        self.ctx = ctx
        self.original_pattern = original_pattern

    def describe(self) -> str:
        p = self.params
        where = ", ".join(shown(self.ctx, b) for b in p.bases)
        return f"Find files '{self.original_pattern}' in {where}"

    def locations(self) -> list[Location]:
        return [Location(str(b)) for b in self.params.bases]

    def _run(self, stop: threading.Event) -> GlobMatches:
        p = self.params
        total = GlobMatches()
        for base in p.bases:
            part = find_matches(
                self.ctx,
                base,
                p.pattern,
                case_sensitive=p.case_sensitive,
                respect_git=p.respect_git,
                respect_gemini=p.respect_gemini,
                stop=stop,
            )
            total.files.extend(part.files)
            total.ignored += part.ignored
        return total

    async def execute(self, output: OutputSink) -> ToolResult:
        p = self.params
        for base in p.bases:
            if not base.is_dir():
                raise ToolError(f"Not a directory: {shown(self.ctx, base)}", "not_a_directory")
        stop = threading.Event()
        try:
            found = await asyncio.to_thread(self._run, stop)
        finally:
            stop.set()  # a cancelled call must not keep walking in its thread
        where = ", ".join(str(b) for b in p.bases)
        ignored = f" ({found.ignored} ignored)" if found.ignored else ""
        if not found.files:
            hint = ""
            if "/" not in self.original_pattern and "**" not in self.original_pattern:
                hint = f" '*' does not cross folders; try '**/{self.original_pattern}' to search subfolders too."
            text = f'No files found matching pattern "{self.original_pattern}" within {where}.{ignored}{hint}'
            return ToolResult(llm_content=text, display=f"No files found{ignored}")
        ordered = order_by_recency(found.files)
        capped = len(ordered) > MAX_RESULTS
        listed = ordered[:MAX_RESULTS]
        head = (
            f'Found {len(ordered)} file(s) matching "{self.original_pattern}" within {where}{ignored}, '
            "recently modified first (newest first), then alphabetical:"
        )
        tail = f"\n(Only the first {MAX_RESULTS} are listed; use a narrower pattern.)" if capped else ""
        text = head + "\n" + "\n".join(str(f) for f in listed) + tail
        return ToolResult(llm_content=text, display=f"Found {len(ordered)} matching file(s){ignored}")
