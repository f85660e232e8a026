"""Opening an MCP server's transport (stdio, SSE or streamable HTTP), and noticing when the server goes away."""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from agent_lsp.mcp.config import McpServerSpec

_IMPORTING = threading.Lock()


def import_sdk(transport: str | None) -> None:
    """Import the MCP SDK modules a transport needs (run in a thread: they take a second or more). One thread at a
    time: two threads importing the SDK's modules at once can each find the other's half-imported."""
    import importlib

    modules = ["mcp", "mcp_types"]
    if transport:
        modules.append(
            {"stdio": "mcp.client.stdio", "sse": "mcp.client.sse", "http": "mcp.client.streamable_http"}[transport]
        )
    if transport in ("sse", "http"):
        modules.append("agent_lsp.mcp.oauth_provider")  # the SDK's OAuth client, which an HTTP connection carries
    with _IMPORTING:
        for name in modules:
            importlib.import_module(name)


async def open_transport(
    spec: McpServerSpec, stack: contextlib.AsyncExitStack, open_log: Callable[[], TextIO], auth: Any = None
) -> tuple[Any, Any]:
    """The (read, write) streams of ``spec``'s transport, entered on ``stack`` so the caller's task leaves them;
    ``auth`` (an httpx2 auth, OAuth) goes with every HTTP request."""
    kind = spec.transport
    if kind == "http":
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        assert spec.http_url is not None
        client = await stack.enter_async_context(
            httpx2.AsyncClient(headers=spec.headers, auth=auth, timeout=httpx2.Timeout(30.0, read=300.0))
        )
        streams: tuple[Any, Any] = await stack.enter_async_context(
            streamable_http_client(spec.http_url, http_client=client)
        )
        return streams
    if kind == "sse":
        from mcp.client.sse import sse_client

        assert spec.url is not None
        streams = await stack.enter_async_context(sse_client(spec.url, headers=dict(spec.headers) or None, auth=auth))
        return streams
    if kind == "stdio":
        from mcp.client.stdio import StdioServerParameters, stdio_client

        assert spec.command is not None
        errlog = stack.enter_context(open_log())
        # Like Gemini CLI, the server inherits our environment redacted of secrets; its own env entries win.
        params = StdioServerParameters(
            command=spec.command, args=list(spec.args), env=spec.inherit.for_server(spec.env), cwd=spec.cwd
        )
        streams = await stack.enter_async_context(stdio_client(params, errlog=errlog))
        return streams
    raise ValueError("no 'command', 'url' or 'httpUrl' is configured")


def server_log_path(spec: McpServerSpec, log_dir: Path | None) -> Path:
    """The file a stdio server's stderr goes to: never our stdout, which carries protocol frames."""
    from agent_lsp.config.paths import state_dir

    folder = log_dir or state_dir() / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"mcp-{re.sub(r'[^A-Za-z0-9_.-]', '_', spec.name)}.log"


def last_log_line(path: Path, start: int, limit: int = 300) -> str | None:
    """The last non-blank line written to ``path`` after offset ``start`` (its tail only: logs can be large)."""
    try:
        with open(path, "rb") as f:
            end = f.seek(0, os.SEEK_END)
            f.seek(max(start, end - 4096))
            tail = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    if not lines:
        return None
    line = lines[-1]
    return line if len(line) <= limit else line[: limit - 1] + "…"


class WatchedReadStream:
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

    def __aiter__(self) -> WatchedReadStream:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> WatchedReadStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
