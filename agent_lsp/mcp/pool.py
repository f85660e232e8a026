"""McpPool: one connection per MCP server (its spec and roots) shared by every session of a process, leased.

A session's :class:`~agent_lsp.mcp.manager.McpManager` leases each of its servers here. The first lease of a key
starts the server; a later one joins it and is handed the server's current tool list and catalog at once; the last
release stops it. A :class:`SharedServer` is the connection's one owner and fans out what it reports to every
lease. What needs a person (sampling, forms, OAuth sign-in) goes to one lease: the one that most recently called
the server's tools, else the one that joined last.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from agent_lsp.mcp.catalog import tell_roots_changed
from agent_lsp.mcp.config import McpServerSpec
from agent_lsp.mcp.connection import ServerConnection, failure_message
from agent_lsp.mcp.elicitation import Elicitor

logger = logging.getLogger(__name__)


class Lease(Protocol):
    """A session's side of a shared server (its manager): its own registry, notices, and way to reach a person."""

    def register_tools(self, srv: ServerConnection, listed: list[Any]) -> None: ...

    def unregister_tools(self, srv: ServerConnection) -> None: ...

    def catalog_changed(self, srv: ServerConnection) -> None: ...

    def notice(self, level: Any, message: str) -> None: ...

    @property
    def samples(self) -> bool: ...

    async def sample(self, server: str, params: Any) -> Any: ...

    sign_in: Callable[[McpServerSpec], Awaitable[None]] | None

    @property
    def elicitor(self) -> Elicitor | None: ...


class SharedServer:
    """One pooled server: its connection (replaced by a restart) and the leases it reports to.
    Implements :class:`agent_lsp.mcp.connection.ConnectionOwner`."""

    def __init__(self, spec: McpServerSpec, roots: tuple[Path, ...] | None, pool: McpPool) -> None:
        self.spec, self.key_roots, self._pool = spec, roots, pool
        self.leases: list[Lease] = []  # in order of use: the last is the one a person is asked through
        self.listed: list[Any] | None = None  # the tool list as last reported, replayed to a late lease
        self.restarting = asyncio.Lock()  # one restart at a time: two at once would each start a connection
        self.conn = self._fresh()

    def _fresh(self) -> ServerConnection:
        return ServerConnection(self.spec, self, self._pool.connect_timeout_s, self._pool.log_dir)

    def touch(self, lease: Lease) -> None:
        """``lease`` used the server (a tool call): what the server asks next goes to it."""
        if lease in self.leases and self.leases[-1] is not lease:
            self.leases.remove(lease)
            self.leases.append(lease)

    def _asked(self, wants: Callable[[Lease], bool]) -> Lease | None:
        return next((lease for lease in reversed(self.leases) if wants(lease)), None)

    # -- ConnectionOwner: fanned out to every lease ----------------------------------------------------------

    def register_tools(self, srv: ServerConnection, listed: list[Any]) -> None:
        self.listed = listed
        for lease in list(self.leases):
            lease.register_tools(srv, listed)

    def unregister_tools(self, srv: ServerConnection) -> None:
        self.listed = None
        for lease in list(self.leases):
            lease.unregister_tools(srv)

    def catalog_changed(self, srv: ServerConnection) -> None:
        for lease in list(self.leases):
            lease.catalog_changed(srv)

    def report_failure(self, srv: ServerConnection, reason: str) -> None:
        message = failure_message(srv, reason)
        logger.warning("%s", message)
        for lease in list(self.leases):
            lease.notice("warning", message)

    def roots(self) -> Sequence[Path] | None:
        return self.key_roots

    # -- routed to one lease ----------------------------------------------------------------------------------

    @property
    def samples(self) -> bool:
        return self._asked(lambda lease: lease.samples) is not None

    async def sample(self, server: str, params: Any) -> Any:
        lease = self._asked(lambda lease: lease.samples)
        if lease is None:
            raise RuntimeError("no session that uses this MCP server can answer sampling now")
        return await lease.sample(server, params)

    @property
    def sign_in(self) -> Callable[[McpServerSpec], Awaitable[None]] | None:
        lease = self._asked(lambda lease: lease.sign_in is not None)
        return lease.sign_in if lease is not None else None

    @property
    def elicitor(self) -> Elicitor | None:
        lease = self._asked(lambda lease: lease.elicitor is not None)
        return lease.elicitor if lease is not None else None


class McpPool:
    """The process's (one runtime's) MCP servers, keyed by spec and roots, leased by sessions."""

    def __init__(self, connect_timeout_s: float = 60.0, close_timeout_s: float = 10.0, log_dir: Path | None = None):
        self.connect_timeout_s, self.close_timeout_s, self.log_dir = connect_timeout_s, close_timeout_s, log_dir
        self._shared: list[SharedServer] = []  # few: found by equality (a spec's env and headers are dicts)

    def lease(self, spec: McpServerSpec, roots: Sequence[Path] | None, lease: Lease) -> SharedServer:
        """Join (or make) the server for ``spec`` and ``roots``: a running one hands its tools and catalog over at
        once. Start it with :meth:`start`."""
        key_roots = tuple(roots) if roots is not None else None
        shared = self._find(spec, key_roots)
        if shared is None:
            shared = SharedServer(spec, key_roots, self)
            self._shared.append(shared)
        shared.leases.append(lease)
        if shared.listed is not None and shared.conn.state == "connected":
            lease.register_tools(shared.conn, shared.listed)
            lease.catalog_changed(shared.conn)
        return shared

    def _find(self, spec: McpServerSpec, roots: tuple[Path, ...] | None) -> SharedServer | None:
        return next((s for s in self._shared if s.spec == spec and s.key_roots == roots), None)

    async def follow_roots(self, shared: SharedServer, roots: tuple[Path, ...], lease: Lease) -> SharedServer:
        """``lease``'s workspace folders became ``roots``: alone on its server (and no server has those roots) it
        keeps it, which is told its roots changed; else it moves to the server for ``roots``, started if need be."""
        if shared.key_roots == roots or lease not in shared.leases:
            return shared
        if self._find(shared.spec, roots) is None and shared.leases == [lease]:
            shared.key_roots = roots
            session = shared.conn.session
            if session is not None and shared.conn.state == "connected":
                await tell_roots_changed(shared.spec.name, session)
            return shared
        await self.release(shared, lease)
        fresh = self.lease(shared.spec, roots, lease)
        self.start(fresh)
        return fresh

    @staticmethod
    def start(shared: SharedServer) -> None:
        """Begin connecting, unless that has begun (by an earlier lease). Needs a running event loop."""
        if shared.conn.task is None:
            shared.conn.start()

    def running(self) -> list[SharedServer]:
        """The servers that have leases now."""
        return list(self._shared)

    async def release(self, shared: SharedServer, lease: Lease) -> None:
        """End ``lease`` (its tools leave its registry); the last release stops the server."""
        if lease in shared.leases:
            shared.leases.remove(lease)
        lease.unregister_tools(shared.conn)
        if shared.leases or shared not in self._shared:
            return
        self._shared.remove(shared)
        await self._stop(shared.conn)

    async def restart(self, shared: SharedServer) -> None:
        """Stop the server and connect it again for every lease (``/mcp refresh`` in any of its sessions)."""
        asked = shared.conn
        async with shared.restarting:
            if shared not in self._shared or shared.conn is not asked:
                return  # released, or restarted meanwhile by another session: that restart answers this one too
            await self._stop(asked)
            if shared not in self._shared:
                return  # the last lease ended while it stopped: nothing to start again
            shared.conn = shared._fresh()
            shared.conn.start()

    async def aclose(self) -> None:
        """Stop every server still leased (the runtime is ending)."""
        shared, self._shared = self._shared, []
        await asyncio.gather(*(self._stop(s.conn) for s in shared), return_exceptions=True)

    async def _stop(self, conn: ServerConnection) -> None:
        task = conn.task
        if task is None or task.done():
            return
        conn.stop()
        try:
            _done, pending = await asyncio.wait([task], timeout=self.close_timeout_s)
            if pending:
                logger.warning("MCP server task %s did not stop in time; cancelling it", task.get_name())
                task.cancel()
                await asyncio.wait([task], timeout=self.close_timeout_s)
        finally:
            if not task.done():
                task.cancel()
