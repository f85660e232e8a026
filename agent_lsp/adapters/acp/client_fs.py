"""A FileSystem backed by the editor: ``fs/read_text_file`` sees unsaved buffers, ``fs/write_text_file`` makes
the edit the editor's (so it can review and undo it). Paths outside the workspace stay on local disk."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from agent_lsp.adapters.acp.jsonrpc import Connection, RpcError
from agent_lsp.adapters.wire import CODES
from agent_lsp.errors import ToolError
from agent_lsp.workspace.filesystem import LocalFileSystem, check_unchanged

log = logging.getLogger(__name__)

_MISSING_WORDS = ("not found", "no such file", "enoent", "does not exist", "doesn't exist", "not exist", "notfound")


def looks_missing(error: RpcError) -> bool:
    """Clients report a missing file in many ways; recognise the common ones."""
    if error.code == CODES["not_found"]:
        return True
    text = f"{error.message} {error.data if error.data is not None else ''}".lower()
    return any(word in text for word in _MISSING_WORDS)


class ClientFileSystem:
    """Reads and/or writes through the client, as far as it advertised ``fs.readTextFile`` / ``fs.writeTextFile``."""

    def __init__(
        self,
        conn: Connection,
        session_id: str,
        roots: Callable[[], Sequence[Path]],
        *,
        read: bool,
        write: bool,
    ) -> None:
        self.conn = conn
        self.session_id = session_id
        self._roots = roots
        self._read = read
        self._write = write
        self._local = LocalFileSystem()

    def _inside(self, path: Path) -> bool:
        p = path.absolute()
        return any(p == r or r in p.parents for r in self._roots())

    async def read_text(self, path: Path) -> str:
        if not (self._read and self._inside(path)):
            return await self._local.read_text(path)
        try:
            answer = await self.conn.request("fs/read_text_file", {"sessionId": self.session_id, "path": str(path)})
        except RpcError as exc:
            if looks_missing(exc) or not await asyncio.to_thread(path.exists):
                raise FileNotFoundError(2, "No such file or directory", str(path)) from exc
            log.warning("editor could not read %s (%s); reading it from disk", path, exc.message)
            return await self._local.read_text(path)
        except ConnectionError:
            return await self._local.read_text(path)
        content = answer.get("content") if isinstance(answer, dict) else None
        if not isinstance(content, str):
            log.warning("editor answered fs/read_text_file for %s without text; reading it from disk", path)
            return await self._local.read_text(path)
        if content == "" and not await asyncio.to_thread(path.exists):
            # CodeCompanion answers a missing file with empty text: it is a new file, not an empty one.
            raise FileNotFoundError(2, "No such file or directory", str(path))
        return content

    async def write_text(self, path: Path, content: str, *, expected: str | None, label: str = "") -> None:
        if not (self._write and self._inside(path)):
            await self._local.write_text(path, content, expected=expected, label=label)
            return
        current: str | None
        try:
            current = await self.read_text(path)
        except FileNotFoundError:
            current = None
        check_unchanged(path, expected, current, where=" in the editor")
        try:
            await self.conn.request(
                "fs/write_text_file", {"sessionId": self.session_id, "path": str(path), "content": content}
            )
        except RpcError as exc:
            raise ToolError(f"The editor did not write {path}: {exc.message}", "editor_declined") from exc
        except ConnectionError as exc:
            raise ToolError(f"The editor is gone; {path} was not written", "editor_declined") from exc

    def open_buffers(self) -> dict[Path, str]:
        # ACP has no way to list the editor's unsaved buffers.
        return {}
