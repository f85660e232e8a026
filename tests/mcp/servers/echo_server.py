"""A small real MCP server for the MCP client tests: stdio by default, or streamable HTTP / SSE on 127.0.0.1.

Usage: echo_server.py [--http] [--sse] [--exit-after SECONDS] [--name NAME]
With --http the server speaks streamable HTTP at /mcp; --sse adds SSE at /sse. It binds a free port itself and
prints ``PORT <n>`` on stdout before serving, so the test learns the port without racing for it.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import threading
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp_types import EmbeddedResource, TextResourceContents
from pydantic import BaseModel, Field

# A 1x1 transparent PNG: enough to prove binary content survives the trip.
PNG_1x1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


class Proceed(BaseModel):
    proceed: bool = Field(title="Proceed")


class Point(BaseModel):
    x: int
    y: int


def build(name: str) -> MCPServer:
    server = MCPServer(name, log_level="WARNING")

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="Return the text unchanged.")
    def echo(text: str) -> str:
        return text

    @server.tool(description="Always fails.")
    def fail() -> str:
        raise ToolError("this tool always fails")

    @server.tool(description="Return a tiny PNG image.")
    def image() -> Image:
        return Image(data=PNG_1x1, format="png")

    @server.tool(description="Return an embedded text resource.")
    def doc() -> EmbeddedResource:
        return EmbeddedResource(
            resource=TextResourceContents(uri="file:///notes.txt", mime_type="text/plain", text="resource body")
        )

    @server.tool(description="Distance of a point from the origin, squared.")
    def norm(point: Point, scale: int = 1) -> int:
        return (point.x * point.x + point.y * point.y) * scale

    @server.tool(description="Report an environment variable and the working directory.")
    def env(var: str) -> str:
        return f"{os.environ.get(var, '<unset>')}|{os.getcwd()}"

    @server.tool(description="Sleep for a while, then say so.")
    async def sleep(seconds: float) -> str:
        import anyio

        await anyio.sleep(seconds)
        return "slept"

    @server.tool(description="Add a tool named `name` and tell the client the tool list changed.")
    async def grow(name: str, ctx: Context) -> str:
        server.add_tool(lambda: "grown", name=name, description="Added at run time.")
        await ctx.session.send_tool_list_changed()
        return "grown"

    @server.tool(description="The value of an HTTP request header (HTTP transports only).")
    def header(name: str, ctx: Context) -> str:
        headers = ctx.headers or {}
        return str(headers.get(name.lower(), "<missing>"))

    @server.tool(description="Exit the server process at once, mid-call.")
    def die() -> str:
        os._exit(3)

    @server.tool(description="Ask the user a yes/no question (elicitation) and report the answer.")
    async def confirm(question: str, ctx: Context) -> str:
        answer = await ctx.elicit(question, Proceed)
        return f"{answer.action}: {answer.data.proceed}" if answer.action == "accept" else answer.action

    @server.tool(description="The elicitation capability the client declared (JSON, or 'none').")
    def elicitation_modes(ctx: Context) -> str:
        caps = ctx.session.client_capabilities
        declared = caps.elicitation if caps is not None else None
        return "none" if declared is None else declared.model_dump_json(exclude_none=True)

    @server.tool(name="a.very-long:tool name " + "x" * 80, description="A name that needs sanitising.")
    def long_name() -> str:
        return "long"

    return server


def _serve_http(server: MCPServer, sse: bool) -> None:
    import anyio
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)  # listening before the port is announced: early connections wait instead of failing
    app: Any = server.streamable_http_app()
    if sse:
        # One process serves both transports: /mcp (streamable HTTP) and /sse + /messages/ (SSE).
        app.router.routes.extend(server.sse_app().routes)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    uv = uvicorn.Server(config)
    anyio.run(lambda: uv.serve(sockets=[sock]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--sse", action="store_true")
    parser.add_argument("--exit-after", type=float, default=None)
    parser.add_argument("--name", default="echo")
    opts = parser.parse_args()
    if opts.exit_after is not None:
        timer = threading.Timer(opts.exit_after, lambda: os._exit(4))
        timer.daemon = True
        timer.start()
    server = build(opts.name)
    if opts.http or opts.sse:
        _serve_http(server, sse=opts.sse)
    else:
        server.run("stdio")
    sys.exit(0)


if __name__ == "__main__":
    main()
