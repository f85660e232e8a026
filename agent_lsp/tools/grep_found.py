"""grep_search's parameters and what a search found: shared by the ripgrep run, the Python fallback and the output."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

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
class Found:
    files: dict[Path, list[Hit]] = field(default_factory=dict)  # names_only: empty lists
    matches: int = 0
    capped: bool = False


def add_file(found: Found, path: Path, limit: int) -> None:
    """Record a file for names_only, counting it as one match against ``limit``."""
    if path in found.files:
        return
    if found.matches >= limit:
        found.capped = True
        return
    found.files[path] = []
    found.matches += 1
