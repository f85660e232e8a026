"""Where the third-party MCP servers live (installed by scripts/install-mcp-servers.sh), and how to run them."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from agent_lsp.mcp.config import McpServerSpec

# Installed outside tests/ (git-ignored) from the manifests in tests/mcp/third_party.
HERE = Path(__file__).parents[2] / ".deps" / "mcp-servers"
NODE_BIN = HERE / "node_modules" / ".bin"
PY_BIN = HERE / ".venv" / "bin"


def installed(executable: Path) -> str:
    """The server's executable, or a failure that says how to install it."""
    if not os.access(executable, os.X_OK):
        raise AssertionError(f"{executable} is missing: run `make test-deps` (scripts/install-mcp-servers.sh)")
    return str(executable)


def everything_stdio(name: str = "everything", **settings: object) -> McpServerSpec:
    """@modelcontextprotocol/server-everything over stdio."""
    entry = {"command": installed(NODE_BIN / "mcp-server-everything"), "args": ["stdio"], **settings}
    return McpServerSpec.from_settings(name, entry)


def python_server(name: str, executable: str, *args: str) -> McpServerSpec:
    """mcp-server-time or mcp-server-git (PyPI), from their own virtual environment."""
    return McpServerSpec.from_settings(name, {"command": installed(PY_BIN / executable), "args": list(args)})


def filesystem(name: str, *roots: Path) -> McpServerSpec:
    """@modelcontextprotocol/server-filesystem, allowed ``roots``."""
    command = installed(NODE_BIN / "mcp-server-filesystem")
    return McpServerSpec.from_settings(name, {"command": command, "args": [str(r) for r in roots]})


@dataclass
class NetworkServer:
    """server-everything started as an SSE or streamable HTTP server on a free local port."""

    proc: subprocess.Popen[bytes]
    port: int

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_everything(transport: str, log: Path) -> NetworkServer:
    """``transport``: "sse" (serves /sse) or "streamableHttp" (serves /mcp); waits until it listens."""
    port = free_port()
    command = installed(NODE_BIN / "mcp-server-everything")
    with open(log, "wb") as out:
        proc = subprocess.Popen([command, transport], env={**os.environ, "PORT": str(port)}, stdout=out, stderr=out)
    deadline = time.monotonic() + 60
    while not re.search(rf"port {port}", log.read_text(errors="replace")):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"server-everything {transport} did not start: {log.read_text(errors='replace')}")
        time.sleep(0.1)
    return NetworkServer(proc, port)
