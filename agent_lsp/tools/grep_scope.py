"""grep_search's parameters and what a search found (shared by the ripgrep run, the Python fallback and the answer),
which files it covers (include/exclude globs, ignore files), and the pure-Python fallback search."""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.file_utils import clip_line, glob_match, ignore_filter
from agent_lsp.workspace.encoding import decode

GREP_LINE_CHARS = 500  # a matched line longer than this is clipped (minified files would flood the answer)


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
class GrepFindings:
    files: dict[Path, list[Hit]] = field(default_factory=dict)  # names_only: empty lists
    matches: int = 0
    capped: bool = False


def add_file(found: GrepFindings, path: Path, limit: int) -> None:
    """Record a file for names_only, counting it as one match against ``limit``."""
    if path in found.files:
        return
    if found.matches >= limit:
        found.capped = True
        return
    found.files[path] = []
    found.matches += 1


# The fallback runs when ripgrep is missing or rejects a pattern Python's re accepts (look-around,
# backreferences); it must give the same answers, so it matches line by line the way rg does.


def wanted(params: GrepParams, path: Path, target: Path) -> bool:
    """include/exclude check: a glob without '/' tests the name, one with '/' the path below ``target``."""
    p = params
    rel = path.name if target == path else os.path.relpath(path, target).replace(os.sep, "/")
    for glob, want in ((p.include, True), (p.exclude, False)):
        if glob is None:
            continue
        subject = rel if "/" in glob.strip("/") else path.name
        if glob_match(glob.lstrip("/"), subject) != want:
            return False
    return True


def python_regex(params: GrepParams) -> re.Pattern[str] | None:
    """The pattern compiled for Python's re; None when re rejects it."""
    p = params
    try:
        return re.compile(re.escape(p.pattern) if p.fixed_strings else p.pattern, 0 if p.case_sensitive else re.I)
    except re.error:
        return None


def python_search(
    ctx: ToolContext,
    params: GrepParams,
    target: Path,
    regex: re.Pattern[str],
    found: GrepFindings,
    skip: set[Path],
    stop: threading.Event,
) -> None:
    """Search every file under ``target`` with Python's re (in a thread: ``stop`` ends it early)."""
    p = params
    if target.is_file():
        paths: Any = [target]
    elif p.no_ignore:
        paths = walk_all(target)
    else:
        paths = ignore_filter(ctx, target).walk(target, should_stop=stop.is_set)
    for path in paths:
        if found.capped or stop.is_set():
            return
        if path in skip or not wanted(p, path, target):
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        text, encoding = decode(data)
        if encoding.binary:
            continue  # binary, as rg treats it (UTF-16 with a BOM is text, as rg reads it too)
        search_texts(found, {path: text}, regex, p)


def search_texts(found: GrepFindings, texts: dict[Path, str], regex: re.Pattern[str], p: GrepParams) -> None:
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
            add_file(found, path, p.max_matches)
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


def walk_all(top: Path) -> Any:
    """Every file below ``top`` except inside .git: what no_ignore searches without rg."""
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in sorted(files):
            yield Path(folder) / name
