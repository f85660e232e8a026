"""The open sessions of one connection, and what the adapter tracks about each."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lsp.adapters.acp.channel import SessionChannel
from agent_lsp.adapters.acp.jsonrpc import RpcError
from agent_lsp.adapters.live import LiveSession

if TYPE_CHECKING:
    from agent_lsp.runtime import SessionHandle
    from agent_lsp.workspace.filesystem import FileSystem


@dataclass(kw_only=True)
class AcpSession(LiveSession):
    """An open session over ACP: the shared live session (opening, model picker, prompt gate) plus the channel its
    updates go through and the filesystem its prompt's attachments are read from."""

    channel: SessionChannel
    fs: FileSystem

    async def handle(self) -> SessionHandle:
        """The session once built (at once, unless a prompt came right behind session/new)."""
        return await self.opening.handle()


class SessionTable:
    """Open sessions by id, and the folders sessions were opened in (where session/list and delete look)."""

    def __init__(self) -> None:
        self._open: dict[str, AcpSession] = {}
        self.cwds: list[Path] = []

    def get(self, session_id: str) -> AcpSession | None:
        return self._open.get(session_id)

    def require(self, session_id: str) -> AcpSession:
        live = self._open.get(session_id)
        if live is None:
            raise RpcError.of(
                "not_found", f"Unknown session {session_id!r}: create it with session/new or load it first"
            )
        return live

    def add(self, live: AcpSession) -> None:
        self._open[live.id] = live

    def remove(self, live: AcpSession) -> None:
        if self._open.get(live.id) is live:
            del self._open[live.id]

    def all(self) -> list[AcpSession]:
        return list(self._open.values())

    def remember(self, cwd: Path) -> None:
        if cwd not in self.cwds:
            self.cwds.append(cwd)
