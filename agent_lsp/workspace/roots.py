"""The workspace boundary: a set of root folders, and path resolution that refuses to leave them."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from agent_lsp.errors import PathOutsideWorkspace


class Workspace:
    """Multi-root workspace. Every path a tool touches goes through :meth:`resolve`."""

    def __init__(self, roots: Iterable[str | Path], *, extra_readable: Iterable[str | Path] = ()) -> None:
        resolved: list[Path] = []
        for r in roots:
            p = Path(r).expanduser().resolve()
            if p not in resolved:
                resolved.append(p)
        if not resolved:
            raise ValueError("a workspace needs at least one root")
        self._roots = resolved
        # Folders tools may use without them being the user's workspace (the agent's own temp files,
        # e.g. full outputs saved when a tool result was truncated); not shown as roots.
        self._extra = [Path(p).expanduser().resolve() for p in extra_readable]

    @property
    def roots(self) -> tuple[Path, ...]:
        return tuple(self._roots)

    @property
    def primary(self) -> Path:
        return self._roots[0]

    def add_root(self, root: str | Path) -> None:
        p = Path(root).expanduser().resolve()
        if p not in self._roots:
            self._roots.append(p)

    def remove_root(self, root: str | Path) -> bool:
        """Stop treating ``root`` as a root; the primary root (the session's working folder) always stays."""
        p = Path(root).expanduser().resolve()
        if p == self._roots[0] or p not in self._roots:
            return False
        self._roots.remove(p)
        return True

    def add_readable(self, folder: str | Path) -> None:
        """Open a folder to the tools without making it a root (an activated skill's resources)."""
        p = Path(folder).expanduser().resolve()
        if p not in self._extra:
            self._extra.append(p)

    def contains(self, path: str | Path) -> bool:
        p = Path(path).resolve()
        return any(p == r or r in p.parents for r in (*self._roots, *self._extra))

    def resolve(self, path: str | Path, *, base: Path | None = None) -> Path:
        """Absolute, symlink-resolved path inside a root; relative paths start at ``base`` or the
        primary root. Raises PathOutsideWorkspace naming the roots."""
        raw = Path(os.path.expanduser(str(path)))
        p = raw if raw.is_absolute() else (base or self.primary) / raw
        # resolve() follows every symlink that exists, so a link pointing out is caught here.
        real = p.resolve()
        if not self.contains(real):
            roots = ", ".join(str(r) for r in self._roots)
            shown = str(path)
            lexical = Path(os.path.normpath(p.absolute()))
            inside_lexically = any(lexical == r or r in lexical.parents for r in self._roots)
            why = " (through a symbolic link)" if inside_lexically else ""
            raise PathOutsideWorkspace(f"Path '{shown}' resolves outside the workspace{why}; allowed roots: {roots}")
        return real

    def relative(self, path: Path) -> str:
        """The path relative to the root containing it (for display), else the absolute path."""
        for r in self._roots:
            if path == r or r in path.parents:
                rel = path.relative_to(r).as_posix()
                return rel or "."
        return str(path)
