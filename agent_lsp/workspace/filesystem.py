"""The FileSystem Protocol tools read and write through, and LocalFileSystem (the disk).

Editors provide their own implementation: reads see unsaved buffers and writes become reviewed
workspace edits. ``write_text`` takes the text the agent based its change on, so any implementation
can refuse a write to a file that changed since it was read (StaleFileError) instead of clobbering it.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path
from typing import Protocol

from agent_lsp.errors import StaleFileError, ToolError


class FileSystem(Protocol):
    async def read_text(self, path: Path) -> str:
        """The file's text as the user sees it (an open buffer wins over disk).

        Raises FileNotFoundError when it does not exist."""
        ...

    async def write_text(self, path: Path, content: str, *, expected: str | None, label: str = "") -> None:
        """Replace the file's text. ``expected`` is the text the change was computed from (None: the file
        must not exist yet). Raises StaleFileError if the current text differs, ToolError if the editor
        declined. ``label`` names the change for the editor's undo/review UI."""
        ...

    def open_buffers(self) -> dict[Path, str]:
        """Unsaved text of open documents that differs from disk (for search tools)."""
        ...


class LocalFileSystem:
    """Plain disk access with atomic writes and a stale-content check."""

    async def read_text(self, path: Path) -> str:
        return await asyncio.to_thread(_read, path)

    async def write_text(self, path: Path, content: str, *, expected: str | None, label: str = "") -> None:
        await asyncio.to_thread(_write_checked, path, content, expected)

    def open_buffers(self) -> dict[Path, str]:
        return {}


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        return fh.read()


def _write_checked(path: Path, content: str, expected: str | None) -> None:
    current: str | None
    try:
        current = _read(path)
    except FileNotFoundError:
        current = None
    check_unchanged(path, expected, current)
    atomic_write(path, content)


def check_unchanged(path: Path, expected: str | None, current: str | None, *, where: str = "") -> None:
    """Refuse a write whose base text is not the file's current text (None: the file does not exist).

    Every FileSystem uses this, so the model always reads the same explanation; ``where`` says, for
    example, " in the editor"."""
    if current == expected:
        return
    if expected is None:
        raise StaleFileError(f"{path} was created by someone else since the agent looked; not overwritten")
    if current is None:
        raise StaleFileError(f"{path} was deleted since the agent read it; not recreated")
    raise StaleFileError(f"{path} changed{where} since the agent read it; re-read it before editing")


def atomic_write(path: Path, content: str) -> None:
    """Write via a temp file in the same folder and rename, keeping the file's mode."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o7777 if path.exists() else None
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(content)
            if mode is not None:
                os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise ToolError(f"could not write {path}: {exc.strerror or exc}") from exc
