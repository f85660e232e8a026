"""The ignore stack: .gitignore (nested, git semantics), .geminiignore and the always-ignored .git folder.

Rules follow what ripgrep does with ``--no-ignore-dot --no-ignore-global``, so the pure-Python walkers
and the ``rg`` fast path agree: a ``.gitignore`` counts only inside a git repository (a ``.git`` entry in
the folder or an ancestor), deeper files and later lines win, and nothing below an ignored folder can be
re-included. ``.geminiignore`` is read from the root only, anchored there, and adds to the git rules.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

GITIGNORE = ".gitignore"
GEMINIIGNORE = ".geminiignore"
ALWAYS_IGNORED = frozenset({".git"})

_SpecKey = tuple[int, int]  # (mtime_ns, size) of the ignore file the spec was parsed from
_spec_cache: dict[Path, tuple[_SpecKey, Any]] = {}
_spec_lock = threading.Lock()


def load_spec(path: Path) -> Any | None:
    """The parsed gitwildmatch spec of one ignore file, or None when it is missing or empty.

    Parsed specs are cached process-wide by (mtime, size) because every tool call builds a fresh filter."""
    try:
        st = path.stat()
    except OSError:
        return None
    key = (st.st_mtime_ns, st.st_size)
    with _spec_lock:
        hit = _spec_cache.get(path)
    if hit is not None and hit[0] == key:
        return hit[1]
    import pathspec  # not at top level: only walkers need it

    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    patterns = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    try:
        spec = pathspec.GitIgnoreSpec.from_lines(patterns) if patterns else None
    except ValueError:
        # A line git itself would ignore (a lone "!", a trailing backslash) must not make every walk fail:
        # keep the lines that parse, as git does.
        good = [ln for ln in patterns if _parses(pathspec, ln)]
        log.warning("%s: skipping %d invalid pattern line(s)", path, len(patterns) - len(good))
        spec = pathspec.GitIgnoreSpec.from_lines(good) if good else None
    with _spec_lock:
        _spec_cache[path] = (key, spec)
    return spec


@dataclass(frozen=True)
class _Rules:
    """Git specs that apply to entries of one folder (shallow to deep), and whether that folder is in a repo."""

    specs: tuple[tuple[str, Any], ...]  # (base folder as str, spec)
    in_git: bool


class IgnoreFilter:
    """Decides which paths under ``root`` are ignored, and walks trees pruning ignored folders."""

    def __init__(self, root: Path, respect_git_ignore: bool = True, respect_gemini_ignore: bool = True) -> None:
        self.root = Path(os.path.abspath(root))
        self.respect_git_ignore = respect_git_ignore
        self.respect_gemini_ignore = respect_gemini_ignore
        self._root_str = str(self.root)
        self._rules: dict[Path, _Rules] = {}
        self._dir_ignored: dict[Path, bool] = {}
        self._gemini = load_spec(self.root / GEMINIIGNORE) if respect_gemini_ignore else None

    # -- rules -------------------------------------------------------------------------------------------

    def _rules_for(self, folder: Path) -> _Rules:
        """The git rules applying to entries directly inside ``folder`` (which is the root or below it)."""
        hit = self._rules.get(folder)
        if hit is not None:
            return hit
        if folder == self.root or self.root not in folder.parents:
            rules = self._root_rules()
        else:
            parent = self._rules_for(folder.parent)
            in_git = parent.in_git or os.path.lexists(folder / ".git")
            rules = parent
            if in_git and self.respect_git_ignore:
                spec = load_spec(folder / GITIGNORE)
                if spec is not None or in_git != parent.in_git:
                    specs = (*parent.specs, (str(folder), spec)) if spec is not None else parent.specs
                    rules = _Rules(specs, in_git)
            elif in_git != parent.in_git:
                rules = _Rules(parent.specs, in_git)
        self._rules[folder] = rules
        return rules

    def _root_rules(self) -> _Rules:
        top = next((p for p in (self.root, *self.root.parents) if os.path.lexists(p / ".git")), None)
        if top is None or not self.respect_git_ignore:
            return _Rules((), top is not None)
        specs: list[tuple[str, Any]] = []
        exclude = load_spec(top / ".git" / "info" / "exclude") if (top / ".git").is_dir() else None
        if exclude is not None:
            specs.append((str(top), exclude))
        # .gitignore files between the repository top and the root still apply inside the root.
        chain = [self.root, *self.root.parents]
        for folder in reversed(chain[: chain.index(top) + 1]):
            spec = load_spec(folder / GITIGNORE)
            if spec is not None:
                specs.append((str(folder), spec))
        return _Rules(tuple(specs), True)

    # -- queries -----------------------------------------------------------------------------------------

    def _entry_ignored(self, path: Path, is_dir: bool, rules: _Rules) -> bool:
        """Whether the entry itself matches, assuming its parent folder is not ignored."""
        name = path.name
        if name in ALWAYS_IGNORED:
            return True
        full = str(path)
        suffix = "/" if is_dir else ""
        for base, spec in reversed(rules.specs):
            rel = full[len(base) + 1 :].replace(os.sep, "/") + suffix
            include = spec.check_file(rel).include
            if include is not None:
                if include:
                    return True
                break
        if self._gemini is not None:
            rel = full[len(self._root_str) + 1 :].replace(os.sep, "/") + suffix
            if self._gemini.match_file(rel):
                return True
        return False

    def is_ignored(self, path: Path, is_dir: bool | None = None) -> bool:
        """True if ``path`` (absolute, under root) or any folder above it is ignored. Paths outside the root
        and the root itself are never ignored here; ``is_dir`` defaults to asking the disk."""
        path = Path(os.path.abspath(path))
        if path == self.root or self.root not in path.parents:
            return False
        if is_dir is None:
            is_dir = path.is_dir()
        if self._folder_ignored(path.parent):
            return True
        return self._entry_ignored(path, is_dir, self._rules_for(path.parent))

    def _folder_ignored(self, folder: Path) -> bool:
        if folder == self.root:
            return False
        hit = self._dir_ignored.get(folder)
        if hit is None:
            hit = self._folder_ignored(folder.parent) or self._entry_ignored(
                folder, True, self._rules_for(folder.parent)
            )
            self._dir_ignored[folder] = hit
        return hit

    def walk(
        self,
        start: Path | None = None,
        *,
        max_depth: int | None = None,
        skip_dir: Callable[[str], bool] | None = None,
        on_ignored: Callable[[Path, bool], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> Iterator[Path]:
        """Yield every non-ignored file under ``start`` (default: root), pruning ignored folders.

        Symbolic links are never followed or yielded, so a walk cannot leave the workspace. ``max_depth`` 0
        means files directly in ``start``. ``skip_dir`` gets a folder's name and drops it silently (default
        excludes); ``on_ignored`` hears about each ignored entry (path, is_dir) that was skipped."""
        begin = Path(os.path.abspath(start)) if start is not None else self.root
        if self.root in begin.parents and self._folder_ignored(begin):
            return
        stack: list[tuple[Path, int]] = [(begin, 0)]
        while stack:
            if should_stop is not None and should_stop():
                return
            folder, depth = stack.pop()
            rules = self._rules_for(folder)
            check = bool(rules.specs) or self._gemini is not None
            try:
                with os.scandir(folder) as it:
                    entries = list(it)
            except OSError:
                continue
            subdirs: list[Path] = []
            for entry in entries:
                try:
                    if entry.is_symlink():
                        continue
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                path = Path(entry.path)
                if entry.name in ALWAYS_IGNORED or (check and self._entry_ignored(path, is_dir, rules)):
                    if on_ignored is not None:
                        on_ignored(path, is_dir)
                    continue
                if is_dir:
                    if skip_dir is not None and skip_dir(entry.name):
                        continue
                    if max_depth is None or depth < max_depth:
                        subdirs.append(path)
                elif entry.is_file(follow_symlinks=False):
                    yield path
            # Reverse so the stack pops folders in name order: walks are deterministic for equal trees.
            subdirs.sort(reverse=True)
            stack.extend((d, depth + 1) for d in subdirs)


def _parses(pathspec: Any, line: str) -> bool:
    try:
        pathspec.GitIgnoreSpec.from_lines([line])
    except ValueError:
        return False
    return True
