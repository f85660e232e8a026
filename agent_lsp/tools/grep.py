"""grep_search: regex search of file contents with ripgrep, a pure-Python fallback, and unsaved buffers; the answer
the model reads (matches grouped by file with line numbers)."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import Any

from agent_lsp.errors import ToolError
from agent_lsp.events import Location
from agent_lsp.tools.base import OutputSink, Tool, ToolInvocation, ToolResult
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.file_utils import glob_problem, ignore_filter, path_problem, resolve, shown
from agent_lsp.tools.grep_rg import find_rg, run_rg
from agent_lsp.tools.grep_scope import (
    GrepFindings,
    GrepParams,
    python_regex,
    python_search,
    search_texts,
    wanted,
)


def grep_result(ctx: ToolContext, params: GrepParams, found: GrepFindings) -> ToolResult:
    """The model's text (``L12: text`` for matches, ``L13- text`` for context, ``--`` between gaps)."""
    p = params
    where = ", ".join(shown(ctx, t) for t in p.targets)
    filt = f' (filter: "{p.include}")' if p.include else ""
    if not found.files:
        text = f'No matches found for pattern "{p.pattern}" in path "{where}"{filt}.'
        return ToolResult(llm_content=text, display="No matches found")
    paths = sorted(found.files)
    more = " There may be more: narrow the pattern, dir_path or include_pattern."
    if p.names_only:
        head = f'Found {len(paths)} file(s) containing matches for pattern "{p.pattern}" in path "{where}"{filt}'
        head += f" (limited to {p.max_matches}).{more}" if found.capped else ":"
        text = head + "\n" + "\n".join(shown(ctx, f) for f in paths)
        return ToolResult(llm_content=text, display=f"Found {len(paths)} file(s)")
    head = f'Found {found.matches} match(es) for pattern "{p.pattern}" in path "{where}"{filt}'
    head += f" (limited to total_max_matches={p.max_matches}).{more}" if found.capped else ":"
    blocks = [head, "---"]
    for path in paths:
        hits = sorted({h.line: h for h in found.files[path]}.values(), key=lambda h: h.line)
        if not hits:
            continue
        blocks.append(f"File: {shown(ctx, path)}")
        prev = None
        for h in hits:
            if prev is not None and h.line > prev + 1:
                blocks.append("--")
            blocks.append(f"L{h.line}{':' if h.is_match else '-'} {h.text}")
            prev = h.line
        blocks.append("---")
    display = f"Found {found.matches} match(es)" + (" (limited)" if found.capped else "")
    return ToolResult(llm_content="\n".join(blocks), display=display)


DEFAULT_MAX_MATCHES = 100


class GrepTool(Tool):
    name = "grep_search"
    display_name = "SearchText"
    kind = "search"
    description = (
        "Searches file contents for a regular expression (ripgrep syntax; case-insensitive unless "
        "case_sensitive is true) under a folder, default: every workspace folder. Results are grouped by file "
        "with 1-based line numbers ('L12: text' for matches, 'L13- text' for context lines). Skips files matched "
        ".gitignore / .geminiignore, binary files and .git. Narrow it with include_pattern (a glob such as "
        "'*.py' or 'src/**/*.{ts,tsx}'), exclude_pattern, or names_only to list just the files. At most "
        f"total_max_matches (default {DEFAULT_MAX_MATCHES}) matching lines are returned; the result says when "
        "it was cut short. Unsaved editor changes are searched instead of the files on disk."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "description": "The regular expression to look for, e.g. 'def \\w+_handler' (or literal text with "
                "fixed_strings).",
            },
            "dir_path": {
                "type": "string",
                "description": "Optional: folder (or single file) to search, absolute or relative to the workspace "
                "root. Defaults to all workspace folders.",
            },
            "include_pattern": {
                "type": "string",
                "description": "Optional: only search files matching this glob, e.g. '*.js' or 'src/**/*.{ts,tsx}'. "
                "A glob without '/' matches file names at any depth; with '/' it is relative to dir_path.",
            },
            "exclude_pattern": {"type": "string", "description": "Optional: skip files matching this glob."},
            "names_only": {
                "type": "boolean",
                "description": "Optional: return only the paths of files that contain a match. Default false.",
            },
            "case_sensitive": {"type": "boolean", "description": "Optional: match case exactly. Default false."},
            "fixed_strings": {
                "type": "boolean",
                "description": "Optional: treat pattern as literal text, not a regular expression. Default false.",
            },
            "context": {"type": "integer", "minimum": 0, "description": "Optional: lines of context around a match."},
            "after": {"type": "integer", "minimum": 0, "description": "Optional: lines of context after a match."},
            "before": {"type": "integer", "minimum": 0, "description": "Optional: lines of context before a match."},
            "no_ignore": {
                "type": "boolean",
                "description": "If true, searches all files including those usually ignored (like in .gitignore, "
                "build/, dist/, etc). Defaults to false if omitted.",
            },
            "max_matches_per_file": {
                "type": "integer",
                "minimum": 1,
                "description": "Optional: Maximum number of matches to return per file. Use this to prevent being "
                "overwhelmed by repetitive matches in large files.",
            },
            "total_max_matches": {
                "type": "integer",
                "minimum": 1,
                "description": f"Optional: most matching lines to return. Default {DEFAULT_MAX_MATCHES}.",
            },
        },
        "required": ["pattern"],
    }

    def __init__(self, ctx: ToolContext, *, use_ripgrep: bool = True) -> None:
        self.ctx = ctx
        self.use_ripgrep = use_ripgrep

    def check(self, params: dict[str, Any]) -> str | None:
        if params["pattern"] == "":
            return "The pattern must not be empty."
        for key in ("include_pattern", "exclude_pattern"):
            glob = params.get(key)
            problem = glob_problem(glob.lstrip("/")) if isinstance(glob, str) and glob else None
            if problem:
                return f"{key}: {problem}"
        if params.get("dir_path"):
            return path_problem(self.ctx, params["dir_path"])
        return None

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        context = params.get("context") or 0
        targets = (resolve(self.ctx, params["dir_path"]),) if params.get("dir_path") else self.ctx.workspace.roots
        gp = GrepParams(
            pattern=params["pattern"],
            targets=tuple(targets),
            include=params.get("include_pattern") or None,
            exclude=params.get("exclude_pattern") or None,
            names_only=bool(params.get("names_only", False)),
            case_sensitive=bool(params.get("case_sensitive", False)),
            fixed_strings=bool(params.get("fixed_strings", False)),
            before=params.get("before", context) or 0,
            after=params.get("after", context) or 0,
            max_matches=params.get("total_max_matches") or DEFAULT_MAX_MATCHES,
            no_ignore=bool(params.get("no_ignore", False)),
            per_file=params.get("max_matches_per_file") or None,
        )
        return GrepInvocation(self.ctx, gp, find_rg() if self.use_ripgrep else None)


class GrepInvocation(ToolInvocation[GrepParams]):
    def __init__(self, ctx: ToolContext, params: GrepParams, rg: str | None) -> None:
        super().__init__(params)
        self.ctx = ctx
        self.rg = rg

    def describe(self) -> str:
        p = self.params
        where = ", ".join(shown(self.ctx, t) for t in p.targets)
        extra = f" ({p.include})" if p.include else ""
        return f"Search '{p.pattern}' in {where}{extra}"

    def locations(self) -> list[Location]:
        return [Location(str(t)) for t in self.params.targets]

    async def execute(self, output: OutputSink) -> ToolResult:
        p = self.params
        for t in p.targets:
            if not t.exists():
                raise ToolError(f"Path not found: {shown(self.ctx, t)}", "file_not_found")
        buffers = self._buffers_in_scope()
        found = GrepFindings()
        regex = python_regex(p)
        if buffers and regex is not None:
            # Python's re can backtrack for a very long time on some patterns: never on the event loop, so the
            # server keeps answering (and can cancel the call) whatever pattern the model sends.
            await asyncio.to_thread(search_texts, found, buffers, regex, p)
        for target in p.targets:
            if found.capped:
                break
            if self.rg is not None:
                ok = await run_rg(self.ctx, p, self.rg, target, found, set(buffers))
                if ok:
                    continue
            if regex is None:
                raise ToolError(f"Invalid regular expression: {p.pattern!r}", "invalid_pattern")
            stop = threading.Event()
            try:
                await asyncio.to_thread(python_search, self.ctx, p, target, regex, found, set(buffers), stop)
            finally:
                stop.set()  # a cancelled call must not keep scanning in its thread
        return grep_result(self.ctx, p, found)

    def _buffers_in_scope(self) -> dict[Path, str]:
        """Unsaved editor buffers for files the search covers; they are searched instead of the disk copy."""
        out: dict[Path, str] = {}
        for path, text in self.ctx.fs.open_buffers().items():
            path = Path(os.path.abspath(path))
            for t in self.params.targets:
                if (path == t or t in path.parents) and wanted(self.params, path, t):
                    if path == t or self.params.no_ignore or not ignore_filter(self.ctx, path).is_ignored(path, False):
                        out[path] = text
                    break
        return out
