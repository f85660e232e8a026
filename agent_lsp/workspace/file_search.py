"""Fuzzy search of a workspace's files and folders for the editors' ``@`` pickers, ignore files respected.

Blocking (it walks the tree): callers run it on a worker thread. The walk stops after ``MAX_SCANNED`` files, and
the walked list is kept for a few seconds so that typing a query letter by letter walks the tree once.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from agent_lsp.workspace.ignore import IgnoreFilter

MAX_SCANNED = 50_000  # files walked per root at most; a bigger tree is searched in its first part, said so
FRESH_SECONDS = 10.0


@dataclass(frozen=True)
class Found:
    root: Path
    relative: str  # "/"-separated, relative to its root; folders end with "/"
    is_dir: bool

    @property
    def path(self) -> Path:
        return self.root / self.relative.rstrip("/")


@dataclass(frozen=True)
class _Listing:
    entries: tuple[Found, ...]
    truncated: bool
    at: float


def score(query: str, candidate: str) -> float | None:
    """How well ``query`` fuzzy-matches ``candidate`` (higher is better), None when its letters are not all there
    in order. A match inside the last path segment, at its start, or as one run counts most; shorter paths win."""
    q = query.lower()
    text = candidate.lower().rstrip("/")
    name_at = text.rfind("/") + 1
    name = text[name_at:]
    if not q:
        return -float(len(text))
    if q in name:
        base = 3000.0 if name.startswith(q) else 2000.0
        return base - len(text)
    if q in text:
        return 1000.0 - len(text)
    pos, gaps, last = 0, 0, -1
    for ch in q:
        found = text.find(ch, pos)
        if found < 0:
            return None
        if last >= 0 and found != last + 1:
            gaps += 1
        last, pos = found, found + 1
    in_name = 200.0 if last >= name_at else 0.0
    return in_name - 10.0 * gaps - len(text)


class FileSearch:
    """Searches the files and folders under some roots; reuses the last walk for ``FRESH_SECONDS``."""

    def __init__(self, fresh_seconds: float = FRESH_SECONDS, max_scanned: int = MAX_SCANNED) -> None:
        self.fresh_seconds = fresh_seconds
        self.max_scanned = max_scanned
        self._lock = threading.Lock()
        self._listings: dict[Path, _Listing] = {}

    def search(self, roots: list[Path], query: str, limit: int) -> tuple[list[Found], bool]:
        """The best ``limit`` matches over all roots, best first, and whether a walk stopped early."""
        scored: list[tuple[float, str, Found]] = []
        truncated = False
        for root in roots:
            listing = self._listing(root)
            truncated = truncated or listing.truncated
            for entry in listing.entries:
                value = score(query, entry.relative)
                if value is not None:
                    scored.append((value, entry.relative, entry))
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [entry for _, _, entry in scored[:limit]], truncated

    def _listing(self, root: Path) -> _Listing:
        now = time.monotonic()
        with self._lock:
            hit = self._listings.get(root)
        if hit is not None and now - hit.at < self.fresh_seconds:
            return hit
        listing = _walk(root, self.max_scanned, now)
        with self._lock:
            self._listings[root] = listing
        return listing


def _walk(root: Path, max_scanned: int, now: float) -> _Listing:
    files: list[Found] = []
    folders: set[str] = set()
    truncated = False
    for path in IgnoreFilter(root).walk():
        if len(files) >= max_scanned:
            truncated = True
            break
        relative = os.path.relpath(path, root).replace(os.sep, "/")
        files.append(Found(root, relative, False))
        parent = relative.rpartition("/")[0]
        while parent and parent not in folders:  # every folder above a listed file, once
            folders.add(parent)
            parent = parent.rpartition("/")[0]
    dirs = [Found(root, f"{folder}/", True) for folder in sorted(folders)]
    return _Listing((*dirs, *files), truncated, now)
