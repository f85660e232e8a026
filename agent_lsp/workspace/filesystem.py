"""The FileSystem Protocol tools read and write through, and LocalFileSystem (the disk).

Editors provide their own implementation: reads see unsaved buffers and writes become reviewed
workspace edits. ``write_text`` takes the text the agent based its change on, so any implementation
can refuse a write to a file that changed since it was read (StaleFileError) instead of clobbering it.
On disk, a file keeps its encoding and byte-order mark (see ``encoding.py``) and is replaced atomically.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Protocol

from agent_lsp.atomic_file import write_atomic
from agent_lsp.errors import StaleFileError, ToolError
from agent_lsp.workspace.encoding import UTF8, FileEncoding, decode, encode


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
    """Plain disk access: lossless decoding, atomic writes in the file's own encoding, a stale-content check."""

    async def read_text(self, path: Path) -> str:
        return await asyncio.to_thread(read_disk_text, path)

    async def write_text(self, path: Path, content: str, *, expected: str | None, label: str = "") -> None:
        await asyncio.to_thread(_write_checked, path, content, expected)

    def open_buffers(self) -> dict[Path, str]:
        return {}


def read_disk_text(path: Path) -> str:
    """The file's text, decoded so that writing it back (see ``_write_checked``) gives the same bytes.

    Raises FileNotFoundError / OSError. Binary files decode as Latin-1 (readable, never editable)."""
    with open(path, "rb") as fh:
        return decode(fh.read())[0]


def disk_encoding(path: Path) -> FileEncoding | None:
    """How the file on disk is encoded (None: it does not exist or cannot be read)."""
    try:
        with open(path, "rb") as fh:
            return decode(fh.read())[1]
    except OSError:
        return None


def _write_checked(path: Path, content: str, expected: str | None) -> None:
    current: str | None
    try:
        with open(path, "rb") as fh:
            current, enc = decode(fh.read())
    except FileNotFoundError:
        current, enc = None, UTF8
    except OSError as exc:
        raise ToolError(f"could not read {path}: {exc.strerror or exc}") from exc
    check_unchanged(path, expected, current)
    # Encoded before anything is written, so text the file's encoding cannot hold changes nothing.
    data = encode(content, enc, str(path))
    _write_bytes(path, data)


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
    """Write UTF-8 ``content`` via a temp file in the same folder and a rename, keeping the file's mode."""
    _write_bytes(path, encode(content, UTF8, str(path)))


def _write_bytes(path: Path, data: bytes) -> None:
    try:
        # sweep: a kill -9 between another file's write and its rename left that file's temp file here; the
        # next write in the folder removes it (only names of ours whose writer is gone), so litter never piles up.
        write_atomic(path, data, sweep=True)
    except OSError as exc:
        raise ToolError(f"could not write {path}: {exc.strerror or exc}") from exc
