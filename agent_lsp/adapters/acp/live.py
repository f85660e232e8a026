"""The open sessions of one connection, and what the adapter tracks about each."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lsp.adapters.acp.channel import SessionChannel
from agent_lsp.adapters.acp.jsonrpc import RpcError

if TYPE_CHECKING:
    from agent_lsp.runtime import SessionHandle, SessionOpening
    from agent_lsp.workspace.filesystem import FileSystem


@dataclass
class LiveSession:
    """An open session: the runtime's opening of it, the channel its updates go through, the prompt in flight.
    Its answer goes out from the opening's preview; what needs the session itself awaits ``handle()``."""

    channel: SessionChannel
    opening: SessionOpening
    fs: FileSystem
    prompting: int = 0  # session/prompt requests received and not yet answered
    cancel_pending: bool = False  # cancelled before its turn began
    models: list[tuple[str, str]] | None = None  # the model picker: what the endpoints offer

    @property
    def id(self) -> str:
        return self.channel.id

    async def handle(self) -> SessionHandle:
        """The session once built (at once, unless a prompt came right behind session/new)."""
        return await self.opening.handle()

    def cancel(self) -> None:
        """Cancel the running turn (or the one about to start); its prompt answers ``cancelled``."""
        handle = self.opening.ready
        if handle is not None and handle.session.running:
            handle.session.cancel()
        elif self.prompting:
            self.cancel_pending = True


class SessionTable:
    """Open sessions by id, and the folders sessions were opened in (where session/list and delete look)."""

    def __init__(self) -> None:
        self._open: dict[str, LiveSession] = {}
        self.cwds: list[Path] = []

    def get(self, session_id: str) -> LiveSession | None:
        return self._open.get(session_id)

    def require(self, session_id: str) -> LiveSession:
        live = self._open.get(session_id)
        if live is None:
            raise RpcError.of(
                "not_found", f"Unknown session {session_id!r}: create it with session/new or load it first"
            )
        return live

    def add(self, live: LiveSession) -> None:
        self._open[live.id] = live

    def remove(self, live: LiveSession) -> None:
        if self._open.get(live.id) is live:
            del self._open[live.id]

    def all(self) -> list[LiveSession]:
        return list(self._open.values())

    def remember(self, cwd: Path) -> None:
        if cwd not in self.cwds:
            self.cwds.append(cwd)
