"""McpManager: a session's MCP servers, leased from the process's pool, with their tools kept in its registry.

Each server is one :class:`~agent_lsp.mcp.connection.ServerConnection` task, shared through
:class:`~agent_lsp.mcp.pool.McpPool` by every session with the same spec and roots. Tool calls are issued from the
caller's task straight onto that live session, so calls run concurrently and are cancelled with their caller.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_lsp.errors import ToolError
from agent_lsp.events import Notice
from agent_lsp.mcp.config import McpServerSpec
from agent_lsp.mcp.connection import ServerConnection, failure_reason
from agent_lsp.mcp.elicitation import Elicitor
from agent_lsp.mcp.pool import McpPool, SharedServer
from agent_lsp.mcp.registration import register_server_tools
from agent_lsp.mcp.tool import ProgressSink
from agent_lsp.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agent_lsp.mcp.oauth import SignIn

logger = logging.getLogger(__name__)

# Importing the SDK (once per process, in a thread) comes before any server's connect timeout starts: a bound
# for it, only in case a wait would otherwise never end. On a quiet machine it takes one or two seconds.
_IMPORT_ALLOWANCE_S = 60.0


class McpManager:
    """One session's leases on its MCP servers. Implements :class:`agent_lsp.mcp.tool.McpCaller` and
    :class:`agent_lsp.mcp.pool.Lease`. Without a ``pool`` it has one of its own (nothing shared)."""

    def __init__(
        self,
        registry: ToolRegistry,
        specs: Sequence[McpServerSpec],
        on_notice: Callable[[Notice], None],
        *,
        connect_timeout_s: float = 60.0,
        close_timeout_s: float = 10.0,
        log_dir: Path | None = None,
        on_catalog_changed: Callable[[], None] | None = None,
        roots: Callable[[], Sequence[Path]] | None = None,
        sampler: Callable[[str, Any], Awaitable[Any]] | None = None,
        sign_in: SignIn | None = None,
        elicitor: Elicitor | None = None,
        pool: McpPool | None = None,
    ) -> None:
        self.sign_in = sign_in  # OAuth through the user's browser (mcp/oauth.py's ``signer``); None: not offered
        self._roots = roots
        self._sampler = sampler
        self.elicitor = elicitor  # servers' forms go to it (ConnectionOwner)
        self._pool = pool if pool is not None else McpPool(connect_timeout_s, close_timeout_s, log_dir)
        self._background: set[asyncio.Task[None]] = set()
        self._registry = registry
        self._on_notice = on_notice
        self._on_catalog_changed = on_catalog_changed
        self._connect_timeout_s = connect_timeout_s
        self._close_timeout_s = close_timeout_s
        self._specs: dict[str, McpServerSpec] = {}
        for spec in specs:
            if spec.name in self._specs:
                logger.warning("MCP server %r is configured twice; the later entry wins", spec.name)
            self._specs[spec.name] = spec
        self._tools: dict[str, list[str]] = {name: [] for name in self._specs}  # registry names, per server
        self._started = False
        self._closed = False
        # This session's lease of each server; leased at once, so a server already running hands its tools over.
        self._shared: dict[str, SharedServer] = {}
        for name, spec in self._specs.items():
            self._shared[name] = self._pool.lease(spec, roots() if roots is not None else None, self)

    # -- lifecycle ---------------------------------------------------------------------------------------

    def start(self) -> None:
        """Begin connecting every server in the background; returns at once. Needs a running event loop."""
        if self._started or self._closed:
            return
        self._started = True
        for shared in self._shared.values():
            self._pool.start(shared)

    @property
    def _servers(self) -> dict[str, ServerConnection]:
        return {name: shared.conn for name, shared in self._shared.items()}

    async def wait_ready(self, timeout_s: float | None = None) -> None:
        """Wait until every server has connected or failed, or ``timeout_s`` passed; never raises on timeout.

        Each server is bounded by its own connect timeout (a server that misses it is reported failed and
        counts as ready), so by default the wait allows that plus the SDK's one-off import before it."""
        started = [srv for srv in self._servers.values() if srv.task is not None]
        if not started:
            return
        if timeout_s is None:
            timeout_s = self.connect_timeout_s + _IMPORT_ALLOWANCE_S
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                await asyncio.gather(*(srv.ready.wait() for srv in started))

    @property
    def connect_timeout_s(self) -> float:
        """The longest any server may take to connect before it counts as failed (its ``timeout`` when set)."""
        return max((srv.connect_timeout_s for srv in self._servers.values()), default=self._connect_timeout_s)

    def status(self) -> dict[str, str]:
        """Per server: "connecting", "connected", "failed: <reason>" or "disconnected"."""
        return {name: self._state(srv) for name, srv in self._servers.items()}

    def _state(self, srv: ServerConnection) -> str:
        # A closed session's servers are disconnected for it, whatever other sessions still do with them.
        return "disconnected" if self._closed and not srv.state.startswith("failed") else srv.state

    def tool_names(self, server: str) -> list[str]:
        """The registry names of the tools a connected server currently contributes to this session."""
        return list(self._tools.get(server, ()))

    async def aclose(self) -> None:
        """Release every lease (a server no other session holds stops). Safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        for task in list(self._background):
            task.cancel()
        leases, self._shared = self._shared, {}
        try:
            await asyncio.gather(*(self._pool.release(shared, self) for shared in leases.values()))
        finally:
            self._shared = leases  # kept to describe them (as disconnected); the pool has forgotten this lease
            for name in self._specs:
                self._drop_tools(name)

    # -- prompts and resources ------------------------------------------------------------------------------

    def prompts(self) -> list[tuple[str, Any]]:
        """(server, the SDK's Prompt) for every prompt of every connected server, in configuration order."""
        return [(name, p) for name, srv in self._servers.items() if srv.state == "connected" for p in srv.prompts]

    def resources(self) -> list[tuple[str, Any]]:
        """(server, the SDK's Resource) for every listed resource of every connected server."""
        return [(name, r) for name, srv in self._servers.items() if srv.state == "connected" for r in srv.resources]

    async def restart(self, names: Sequence[str] = ()) -> list[str]:
        """Stop the named servers (all when none are named) and connect them again, for every session that
        shares them, waiting until each has connected or failed; returns the names that are not configured."""
        unknown = [n for n in names if n not in self._shared]
        chosen = [self._shared[n] for n in names if n in self._shared] if names else list(self._shared.values())
        if self._closed or not chosen:
            return unknown
        await asyncio.gather(*(self._pool.restart(shared) for shared in chosen))
        for shared in chosen:
            shared.catalog_changed(shared.conn)
        await self.wait_ready()
        return unknown

    def servers(self) -> list[ServerConnection]:
        """Every configured server's connection, in configuration order (for descriptions)."""
        return list(self._servers.values())

    def connecting(self) -> bool:
        """Whether some server has not yet connected or failed."""
        return any(srv.state == "connecting" for srv in self._servers.values())

    def live_session(self, server: str) -> Any:
        """The server's live SDK session; ToolError (a message for the user or model) when it has none."""
        srv = self._servers.get(server)
        if srv is None:
            raise ToolError(f"MCP server '{server}' is not configured", "mcp_server_unavailable")
        if srv.session is None or srv.state != "connected":
            raise ToolError(f"MCP server '{server}' is not connected ({srv.state})", "mcp_server_unavailable")
        return srv.session

    # -- calls (McpCaller) ---------------------------------------------------------------------------------

    async def call_tool(
        self, server: str, tool: str, args: dict[str, Any], timeout_s: float, on_progress: ProgressSink | None = None
    ) -> Any:
        """Call ``tool`` on ``server``'s live session; every failure is a ToolError the model can read."""
        shared = self._shared.get(server)
        if shared is None:
            raise ToolError(f"MCP server '{server}' is not configured", "mcp_server_unavailable")
        srv = shared.conn
        shared.touch(self)  # what the server asks during this call (sampling, a form) comes to this session
        session = srv.session
        if session is None or srv.state != "connected":
            raise ToolError(
                f"MCP server '{server}' is not connected ({srv.state}); tool '{tool}' cannot run",
                "mcp_server_unavailable",
            )
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        try:
            return await session.call_tool(
                tool, args, read_timeout_seconds=timeout_s, progress_callback=_progress_callback(on_progress)
            )
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                raise ToolError(
                    f"MCP tool '{tool}' on server '{server}' timed out after {timeout_s:g} s", "mcp_timeout"
                ) from None
            if exc.code == CONNECTION_CLOSED:
                raise ToolError(
                    f"MCP server '{server}' closed the connection while running '{tool}'", "mcp_server_unavailable"
                ) from None
            raise ToolError(f"MCP server '{server}' refused '{tool}': {_refusal(srv, exc)}", "mcp_error") from None
        except Exception as exc:
            # Transport failures and malformed replies come from outside our code: the model hears about them.
            logger.warning("MCP call %s/%s failed", server, tool, exc_info=True)
            raise ToolError(
                f"calling MCP tool '{tool}' on server '{server}' failed: {failure_reason(exc)}", "mcp_error"
            ) from exc

    # -- what connections report (ConnectionOwner) ------------------------------------------------------------

    # -- what the shared connection reports (Lease) -------------------------------------------------------------

    def register_tools(self, srv: ServerConnection, listed: list[Any]) -> None:
        if self._closed:
            return
        self._drop_tools(srv.spec.name)
        skipped = register_server_tools(self._registry, srv.spec, listed, self, self._tools[srv.spec.name])
        if skipped:
            self.notice("warning", f"MCP server '{srv.spec.name}': skipped tool(s) {', '.join(skipped)}")

    def unregister_tools(self, srv: ServerConnection) -> None:
        self._drop_tools(srv.spec.name)

    def _drop_tools(self, name: str) -> None:
        tools = self._tools.get(name)
        if tools:
            self._registry.unregister_server(name)
            tools.clear()

    @property
    def samples(self) -> bool:
        return self._sampler is not None

    async def sample(self, server: str, params: Any) -> Any:
        assert self._sampler is not None
        return await self._sampler(server, params)

    def roots_changed(self) -> None:
        """The workspace folders changed. Roots are part of a server's key: a server this session has to itself
        is told (``notifications/roots/list_changed``); a shared one is left for the server with these roots."""
        if self._roots is None or self._closed:
            return
        task = asyncio.get_running_loop().create_task(self._follow_roots(tuple(self._roots())))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _follow_roots(self, roots: tuple[Path, ...]) -> None:
        for name, old in list(self._shared.items()):
            if not self._closed:
                self._shared[name] = await self._pool.follow_roots(old, roots, self)

    def catalog_changed(self, srv: ServerConnection) -> None:
        if self._on_catalog_changed is not None:
            try:
                self._on_catalog_changed()
            except Exception:
                logger.exception("the MCP catalog callback raised")

    def notice(self, level: Any, message: str) -> None:
        if self._closed:
            return
        try:
            self._on_notice(Notice(level, message))
        except Exception:
            logger.exception("the MCP notice callback raised")


def _progress_callback(sink: ProgressSink | None) -> Any:
    """The SDK's async progress callback for ``sink``; passing one makes the SDK send a progress token."""
    if sink is None:
        return None

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        try:
            sink(progress, total, message)
        except Exception:
            logger.exception("an MCP progress sink raised")

    return on_progress


def _refusal(srv: ServerConnection, exc: Any) -> str:
    """Why a call was refused: the server's refusal of our OAuth token when that was it (it names the fix)."""
    refused = getattr(srv.auth, "problem", None)
    return refused if isinstance(refused, str) else str(exc.message)
