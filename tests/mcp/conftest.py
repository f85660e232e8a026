"""Fixtures for the MCP tests: the real test server as stdio specs or HTTP/SSE subprocesses, and child tracking."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_lsp.events import Notice
from agent_lsp.mcp.config import McpServerSpec
from agent_lsp.mcp.manager import McpManager
from agent_lsp.tools.base import Tool, ToolInvocation, ToolResult
from agent_lsp.tools.registry import ToolRegistry

SERVER = Path(__file__).parent / "servers" / "echo_server.py"


def stdio_spec(name: str, *extra: str, **fields: Any) -> McpServerSpec:
    """A spec that runs the test server over stdio; ``--name`` lets a test find the process again."""
    return McpServerSpec(name, command=sys.executable, args=(str(SERVER), "--name", name, *extra), **fields)


def child_pids() -> dict[int, str]:
    """Live (non-zombie) children of this process, with their command lines."""
    me = os.getpid()
    found: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == me and fields[0] != "Z":
            found[int(entry)] = cmdline
    return found


def kill_child(marker: str) -> int:
    """SIGKILL the one child whose command line contains ``marker``."""
    pids = [pid for pid, cmd in child_pids().items() if marker in cmd]
    assert len(pids) == 1, f"expected one child matching {marker!r}, found {pids}"
    os.kill(pids[0], signal.SIGKILL)
    return pids[0]


async def eventually(check: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.05)


class BuiltinTool(Tool):
    """A stand-in built-in, to make an MCP tool's name clash."""

    kind = "other"

    def __init__(self, name: str) -> None:
        self.name = name
        self.display_name = name
        self.description = "built in"
        self.parameters = {"type": "object", "properties": {}}

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        raise NotImplementedError


class Harness:
    """A manager plus the notices it sent."""

    def __init__(self, specs: list[McpServerSpec], tmp_path: Path, registry: ToolRegistry | None = None, **kw: Any):
        self.registry = registry or ToolRegistry()
        self.notices: list[Notice] = []
        self.manager = McpManager(self.registry, specs, self.notices.append, log_dir=tmp_path / "logs", **kw)

    def tool(self, server: str, original: str) -> Any:
        for t in self.registry.tools():
            if t.server == server and getattr(t, "server_tool_name", None) == original:
                return t
        raise KeyError(f"{server}/{original} is not registered")

    def server_tools(self, server: str) -> set[str]:
        return {getattr(t, "server_tool_name", "") for t in self.registry.tools() if t.server == server}

    async def call(self, server: str, original: str, **args: Any) -> ToolResult:
        result: ToolResult = await self.tool(server, original).build(args).execute(lambda _chunk: None)
        return result


@dataclass
class HttpServer:
    proc: subprocess.Popen[str]
    port: int

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        if self.proc.stdout:
            self.proc.stdout.close()


def start_http_server(*flags: str, script: Path = SERVER) -> HttpServer:
    """``script`` (a test server that prints ``PORT <n>`` before it serves) as a subprocess."""
    proc = subprocess.Popen(
        [sys.executable, str(script), *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()  # the server prints its port before it serves
    if not line.startswith("PORT "):
        proc.kill()
        proc.wait()
        raise RuntimeError(f"test server {script.name} did not start: {line!r}")
    return HttpServer(proc, int(line.split()[1]))


@pytest.fixture(scope="module")
def http_server() -> Iterator[HttpServer]:
    """One server process for the module, speaking streamable HTTP at /mcp and SSE at /sse."""
    server = start_http_server("--http", "--sse")
    yield server
    server.stop()
