"""Choosing the files read_many_files and @path mentions read: paths, folders and globs, excludes, ignore files."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from agent_lsp.errors import PathOutsideWorkspace
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.file_utils import (
    GlobPatternError,
    expand_braces,
    glob_match,
    glob_regex,
    has_glob,
    ignore_filter,
    shown,
    split_glob,
)

DEFAULT_EXCLUDED_DIRS = frozenset(
    (
        *("node_modules", ".git", ".svn", ".hg", ".vscode", ".idea", "dist", "build", "coverage", "__pycache__"),
        *(".venv", "venv", ".tox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".next", ".nuxt", ".cache"),
        ".gradle",
    )
)
DEFAULT_EXCLUDED_NAMES = (
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
    "poetry.lock",
    "Pipfile.lock",
    "uv.lock",
    "Cargo.lock",
    "Gemfile.lock",
    "composer.lock",
    "go.sum",
    "flake.lock",
    ".DS_Store",
    ".env",
    "*.min.js",
    "*.min.css",
    "*.map",
)


@dataclass
class Collected:
    """Files chosen for reading (path -> named explicitly) and what was left out, with reasons."""

    files: dict[Path, bool] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    ignored: int = 0


def _excluded(rel: str, patterns: tuple[str, ...]) -> bool:
    """A pattern with '/' matches the path from the root (or anything under it); one without matches any
    single name on the path, so 'tests' drops a tests folder and '*.log' any log file."""
    parts = rel.split("/")
    for pat in patterns:
        body = pat.strip("/")
        if "/" in body:
            if glob_match(body, rel) or glob_match(body + "/**", rel):
                return True
        elif any(glob_match(body, part) for part in parts):
            return True
    return False


def _names_media(pattern: str, path: Path) -> bool:
    """Whether a glob explicitly asks for this kind of file (e.g. '*.png' for a PNG)."""
    suffix = path.suffix.lower()
    try:
        return bool(suffix) and any(p.lower().endswith(suffix) for p in expand_braces(pattern))
    except GlobPatternError:
        return False


def collect(
    ctx: ToolContext,
    include: list[str],
    exclude: list[str] | tuple[str, ...] = (),
    *,
    recursive: bool = True,
    use_default_excludes: bool = True,
    respect_git: bool | None = None,
    respect_gemini: bool | None = None,
    stop: threading.Event | None = None,
) -> Collected:
    """Expand paths, folders and globs into files inside the workspace (blocking; run it in a thread)."""
    out = Collected()
    excludes = tuple(exclude)
    skip_dir = (lambda name: name in DEFAULT_EXCLUDED_DIRS) if use_default_excludes else None
    stopped = stop.is_set if stop is not None else None

    def consider(path: Path, root: Path, explicit: bool, pattern: str | None) -> None:
        rel = path.relative_to(root).as_posix()
        if excludes and _excluded(rel, excludes):
            out.skipped.append((shown(ctx, path), "matched an exclude pattern"))
            return
        if not explicit and use_default_excludes and _excluded(rel, DEFAULT_EXCLUDED_NAMES):
            return
        out.files.setdefault(path, explicit or (pattern is not None and _names_media(pattern, path)))

    def count_ignored(path: Path, is_dir: bool) -> None:
        out.ignored += 1

    for raw in include:
        entry = raw.strip().removeprefix("@")
        if not entry:
            continue
        try:
            path = ctx.workspace.resolve(entry)
        except PathOutsideWorkspace:
            out.skipped.append((entry, "outside the workspace"))
            continue
        flt = ignore_filter(ctx, path, respect_git, respect_gemini)
        if path.is_file():
            if flt.is_ignored(path, False):
                out.skipped.append((entry, "ignored by .gitignore / .geminiignore"))
            else:
                consider(path, flt.root, True, None)
            continue
        if path.is_dir():
            if flt.is_ignored(path, True):
                out.skipped.append((entry, "ignored by .gitignore / .geminiignore"))
                continue
            depth = None if recursive else 0
            for f in flt.walk(path, max_depth=depth, skip_dir=skip_dir, on_ignored=count_ignored, should_stop=stopped):
                consider(f, flt.root, False, None)
            continue
        if not has_glob(entry):
            out.skipped.append((entry, "not found"))
            continue
        prefix, rest = split_glob(entry)
        if "/" not in entry and recursive:
            rest = "**/" + rest  # a bare '*.py' means every .py file, like a .gitignore line
        try:
            bases = [ctx.workspace.resolve(prefix)] if prefix else list(ctx.workspace.roots)
        except PathOutsideWorkspace:
            out.skipped.append((entry, "outside the workspace"))
            continue
        before = len(out.files)
        try:
            regex = glob_regex(rest, True)
        except GlobPatternError as exc:
            out.skipped.append((entry, str(exc)))
            continue
        for base in bases:
            if not base.is_dir():
                continue
            bflt = ignore_filter(ctx, base, respect_git, respect_gemini)
            depth = None if "**" in rest else rest.count("/")
            for f in bflt.walk(base, max_depth=depth, skip_dir=skip_dir, on_ignored=count_ignored, should_stop=stopped):
                if regex.fullmatch(f.relative_to(base).as_posix()):
                    consider(f, bflt.root, False, entry)
        if len(out.files) == before:
            out.skipped.append((entry, "no files matched"))
    return out
