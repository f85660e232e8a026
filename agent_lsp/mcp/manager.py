"""McpManager: connects the configured MCP servers in the background and keeps their tools in the registry.

Each server is one long-lived asyncio task that enters and leaves the transport and session contexts itself
(anyio cancel scopes must be exited by the task that entered them). Tool calls are issued from the caller's
task straight onto that live session, so calls run concurrently and are cancelled with their caller.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from agent_lsp.errors import ToolError
from agent_lsp.events import Notice
from agent_lsp.mcp.config import McpServerSpec
from agent_lsp.mcp.schema import repair_schema
from agent_lsp.mcp.tool import McpTool, sanitize_function_name
from agent_lsp.tools.registry import ToolRegistry

logger = logging.getLogger(__name__)

_CLIENT_NAME = "agent-lsp"
_CLIENT_VERSION = "0.1.0"


@dataclass(eq=False)
class _Server:
    spec: McpServerSpec
    state: str = "disconnected"
    session: Any = None  # the live mcp ClientSession while connected
    task: asyncio.Task[None] | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    closing: bool = False
    eof: bool = False
    relist: bool = False
    tools: list[str] = field(default_factory=list)
    log_path: Path | None = None  # where a stdio server's stderr goes


class McpManager:
    """Owns the MCP connections of one session. Implements :class:`agent_lsp.mcp.tool.McpCaller`."""

    def __init__(
        self,
        registry: ToolRegistry,
        specs: Sequence[McpServerSpec],
        on_notice: Callable[[Notice], None],
        *,
        connect_timeout_s: float = 60.0,
        close_timeout_s: float = 10.0,
        log_dir: Path | None = None,
    ) -> None:
        self._registry = registry
        self._on_notice = on_notice
        self._connect_timeout_s = connect_timeout_s
        self._close_timeout_s = close_timeout_s
        self._log_dir = log_dir
        self._servers: dict[str, _Server] = {}
        for spec in specs:
            if spec.name in self._servers:
                logger.warning("MCP server %r is configured twice; the later entry wins", spec.name)
            self._servers[spec.name] = _Server(spec)
        self._started = False
        self._closed = False

    # -- lifecycle ---------------------------------------------------------------------------------------

    def start(self) -> None:
        """Begin connecting every server in the background; returns at once. Needs a running event loop."""
        if self._started or self._closed:
            return
        self._started = True
        loop = asyncio.get_running_loop()
        for srv in self._servers.values():
            srv.state = "connecting"
            srv.task = loop.create_task(self._run(srv), name=f"mcp-server:{srv.spec.name}")

    async def wait_ready(self, timeout_s: float) -> None:
        """Wait until every server has connected or failed, or ``timeout_s`` passed; never raises on timeout."""
        waits = [srv.ready.wait() for srv in self._servers.values() if srv.task is not None]
        if not waits:
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                await asyncio.gather(*waits)

    @property
    def connect_timeout_s(self) -> float:
        """How long a server may take to connect before it counts as failed."""
        return self._connect_timeout_s

    def status(self) -> dict[str, str]:
        """Per server: "connecting", "connected", "failed: <reason>" or "disconnected"."""
        return {name: srv.state for name, srv in self._servers.items()}

    def tool_names(self, server: str) -> list[str]:
        """The registry names of the tools a connected server currently contributes."""
        srv = self._servers.get(server)
        return list(srv.tools) if srv else []

    async def aclose(self) -> None:
        """Close every session and stop every stdio server. Safe to call more than once."""
        self._closed = True
        tasks: list[asyncio.Task[None]] = []
        for srv in self._servers.values():
            task = srv.task
            if task is None or task.done():
                continue
            srv.closing = True
            if srv.session is None:
                task.cancel()  # still connecting: there is no session to close politely
            srv.wake.set()
            tasks.append(task)
        try:
            if tasks:
                _done, pending = await asyncio.wait(tasks, timeout=self._close_timeout_s)
                for task in pending:
                    logger.warning("MCP server task %s did not stop in time; cancelling it", task.get_name())
                    task.cancel()
                if pending:
                    await asyncio.wait(pending, timeout=self._close_timeout_s)
        finally:
            for task in tasks:
                if not task.done():
                    task.cancel()
            for srv in self._servers.values():
                self._unregister(srv)
                if not srv.state.startswith("failed"):
                    srv.state = "disconnected"

    # -- calls (McpCaller) ---------------------------------------------------------------------------------

    async def call_tool(self, server: str, tool: str, args: dict[str, Any], timeout_s: float) -> Any:
        """Call ``tool`` on ``server``'s live session; every failure is a ToolError the model can read."""
        srv = self._servers.get(server)
        if srv is None:
            raise ToolError(f"MCP server '{server}' is not configured", "mcp_server_unavailable")
        session = srv.session
        if session is None or srv.state != "connected":
            raise ToolError(
                f"MCP server '{server}' is not connected ({srv.state}); tool '{tool}' cannot run",
                "mcp_server_unavailable",
            )
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        try:
            return await session.call_tool(tool, args, read_timeout_seconds=timeout_s)
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                raise ToolError(
                    f"MCP tool '{tool}' on server '{server}' timed out after {timeout_s:g} s", "mcp_timeout"
                ) from None
            if exc.code == CONNECTION_CLOSED:
                raise ToolError(
                    f"MCP server '{server}' closed the connection while running '{tool}'", "mcp_server_unavailable"
                ) from None
            raise ToolError(f"MCP server '{server}' refused '{tool}': {exc.message}", "mcp_error") from None
        except Exception as exc:
            # Transport failures and malformed replies come from outside our code: the model hears about them.
            logger.warning("MCP call %s/%s failed", server, tool, exc_info=True)
            raise ToolError(
                f"calling MCP tool '{tool}' on server '{server}' failed: {_reason(exc)}", "mcp_error"
            ) from exc

    # -- the per-server task -------------------------------------------------------------------------------

    async def _run(self, srv: _Server) -> None:
        try:
            # The SDK takes a second or more to import; in a thread, the editor's protocol loop keeps answering.
            await asyncio.to_thread(_import_sdk, srv.spec.transport)
            await self._connect_and_serve(srv)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if srv.closing or srv.state.startswith("failed"):
                logger.debug("MCP server %r raised while shutting down", srv.spec.name, exc_info=True)
            else:
                self._fail(srv, _reason(exc, self._connect_timeout_s))
        finally:
            srv.session = None
            self._unregister(srv)
            if srv.state in ("connecting", "connected"):
                srv.state = "disconnected"
            srv.ready.set()

    async def _connect_and_serve(self, srv: _Server) -> None:
        import anyio
        from mcp import ClientSession, Implementation

        async def on_message(message: Any) -> None:
            if isinstance(message, Exception):
                logger.debug("MCP server %r transport error: %s", srv.spec.name, message)
            elif type(message).__name__ == "ToolListChangedNotification":
                srv.relist = True
                srv.wake.set()

        def on_eof() -> None:
            srv.eof = True
            srv.wake.set()

        async with contextlib.AsyncExitStack() as stack:
            read, write = await self._open_transport(srv, stack)
            session = await stack.enter_async_context(
                ClientSession(
                    _WatchedReadStream(read, on_eof),
                    write,
                    message_handler=on_message,
                    client_info=Implementation(name=_CLIENT_NAME, version=_CLIENT_VERSION),
                )
            )
            try:
                with anyio.fail_after(self._connect_timeout_s):
                    await session.initialize()
                    listed = await _list_tools(session)
                srv.session = session
                self._register(srv, listed)
                srv.state = "connected"
                srv.ready.set()
                logger.info("MCP server %r connected with %d tool(s)", srv.spec.name, len(srv.tools))
                await self._serve(srv, session)
            except Exception as exc:
                # Report now: leaving the transport can take seconds (a stdio server gets time to exit).
                if not srv.closing:
                    self._fail(srv, _reason(exc, self._connect_timeout_s))
                srv.session = None
                self._unregister(srv)
                srv.ready.set()
                raise

    async def _serve(self, srv: _Server, session: Any) -> None:
        """Sleep until asked to close, the server goes away, or its tool list changes."""
        import anyio

        while not srv.closing:
            if srv.eof:
                raise ConnectionError("the server closed the connection")
            if srv.relist:
                srv.relist = False
                with anyio.fail_after(self._connect_timeout_s):
                    listed = await _list_tools(session)
                self._unregister(srv)
                self._register(srv, listed)
                continue
            await srv.wake.wait()
            srv.wake.clear()

    async def _open_transport(self, srv: _Server, stack: contextlib.AsyncExitStack) -> tuple[Any, Any]:
        spec = srv.spec
        kind = spec.transport
        if kind == "http":
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            assert spec.http_url is not None
            client = await stack.enter_async_context(
                httpx2.AsyncClient(headers=spec.headers, timeout=httpx2.Timeout(30.0, read=300.0))
            )
            streams: tuple[Any, Any] = await stack.enter_async_context(
                streamable_http_client(spec.http_url, http_client=client)
            )
            return streams
        if kind == "sse":
            from mcp.client.sse import sse_client

            assert spec.url is not None
            streams = await stack.enter_async_context(sse_client(spec.url, headers=dict(spec.headers) or None))
            return streams
        if kind == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            assert spec.command is not None
            errlog = stack.enter_context(self._open_log(srv))
            # Like Gemini CLI, the server inherits our environment; its own env entries win.
            params = StdioServerParameters(
                command=spec.command, args=list(spec.args), env={**os.environ, **spec.env}, cwd=spec.cwd
            )
            streams = await stack.enter_async_context(stdio_client(params, errlog=errlog))
            return streams
        raise ValueError("no 'command', 'url' or 'httpUrl' is configured")

    def _open_log(self, srv: _Server) -> TextIO:
        """The file a stdio server's stderr goes to: never our stdout, which carries protocol frames."""
        from agent_lsp.config.paths import state_dir

        folder = self._log_dir or state_dir() / "logs"
        folder.mkdir(parents=True, exist_ok=True)
        srv.log_path = folder / f"mcp-{re.sub(r'[^A-Za-z0-9_.-]', '_', srv.spec.name)}.log"
        return open(srv.log_path, "a", encoding="utf-8")

    # -- registry --------------------------------------------------------------------------------------------

    def _register(self, srv: _Server, listed: list[Any]) -> None:
        spec = srv.spec
        skipped: list[str] = []
        for item in listed:
            original = str(item.name)
            if not spec.allows(original):
                continue
            params = repair_schema(item.input_schema)
            if params is None:
                skipped.append(f"{original} (its input schema cannot be used)")
                continue
            name = sanitize_function_name(original)
            if self._registry.get(name) is not None:
                name = sanitize_function_name(f"{spec.name}__{original}")
            if self._registry.get(name) is not None:
                skipped.append(f"{original} (the name {name} is taken)")
                continue
            tool = McpTool(
                server=spec.name,
                tool_name=original,
                description=str(item.description or ""),
                parameters=params,
                caller=self,
                trusted=spec.trust,
                timeout_s=spec.timeout_s,
                name=name,
            )
            srv.tools.append(self._registry.register(tool))
        if skipped:
            self._notice("warning", f"MCP server '{spec.name}': skipped tool(s) {', '.join(skipped)}")

    def _unregister(self, srv: _Server) -> None:
        if srv.tools:
            self._registry.unregister_server(srv.spec.name)
            srv.tools.clear()

    def _fail(self, srv: _Server, reason: str) -> None:
        was_connected = srv.state == "connected"
        srv.state = f"failed: {reason}"
        if was_connected:
            message = f"MCP server '{srv.spec.name}' disconnected: {reason}. Its tools are no longer available."
        else:
            message = f"MCP server '{srv.spec.name}' failed to start: {reason}"
        if srv.log_path is not None:
            message += f" (server log: {srv.log_path})"
        logger.warning("%s", message)
        self._notice("warning", message)

    def _notice(self, level: Any, message: str) -> None:
        try:
            self._on_notice(Notice(level, message))
        except Exception:
            logger.exception("the MCP notice callback raised")


def _import_sdk(transport: str | None) -> None:
    import importlib

    modules = ["mcp", "mcp_types"]
    if transport:
        modules.append(
            {"stdio": "mcp.client.stdio", "sse": "mcp.client.sse", "http": "mcp.client.streamable_http"}[transport]
        )
    for name in modules:
        importlib.import_module(name)


async def _list_tools(session: Any) -> list[Any]:
    """Every tool the server offers, following pagination (bounded, in case a server never stops paging)."""
    from mcp_types import PaginatedRequestParams

    tools: list[Any] = []
    cursor: str | None = None
    for _page in range(100):
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        result = await session.list_tools(params=params)
        tools.extend(result.tools)
        cursor = result.next_cursor
        if not cursor:
            break
    return tools


def _reason(exc: BaseException, connect_timeout_s: float | None = None) -> str:
    """A one-line reason for a person: the innermost meaningful error of an exception group."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError) and connect_timeout_s is not None:
        return f"no answer within {connect_timeout_s:g} s"
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


class _WatchedReadStream:
    """Passes the transport's read stream through, and reports when it ends: the server went away."""

    def __init__(self, inner: Any, on_eof: Callable[[], None]) -> None:
        self._inner = inner
        self._on_eof = on_eof

    @property
    def last_context(self) -> Any:
        # The dispatcher reads this duck-typed attribute after each message (streamable HTTP sets it).
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        import anyio

        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_eof()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _WatchedReadStream:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _WatchedReadStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
