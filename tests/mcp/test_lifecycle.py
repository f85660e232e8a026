"""A server's life with the manager: its own ``timeout`` bounds connecting, and nothing of it outlives a close."""

from __future__ import annotations

import sys
from pathlib import Path

from agent_lsp.mcp.config import McpServerSpec
from agent_lsp.untrusted import wrap_untrusted

from .conftest import Harness, eventually, kill_child, stdio_spec

HUNG = Path(__file__).parent / "servers" / "hung_server.py"


def hung_spec(name: str, pid_file: Path, **settings: object) -> McpServerSpec:
    entry = {"command": sys.executable, "args": [str(HUNG), "--pid-file", str(pid_file)], **settings}
    return McpServerSpec.from_settings(name, entry)


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped does not count)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


async def gone(*pids: int) -> None:
    """The processes end: a SIGKILL to a group is delivered at once, but a member may take a moment to die."""
    await eventually(lambda: not any(alive(pid) for pid in pids), timeout_s=5)


def started_pids(pid_file: Path) -> list[int]:
    text = pid_file.read_text() if pid_file.exists() else ""
    return [int(line) for line in text.split()] if text.count("\n") >= 2 else []


async def test_the_servers_timeout_bounds_connecting_and_a_close_kills_its_whole_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    # The manager's own default would wait a minute: the server's "timeout" (milliseconds, as in Gemini CLI) wins.
    h = Harness([hung_spec("hung", pid_file, timeout=1000)], tmp_path, connect_timeout_s=60)
    assert h.manager.connect_timeout_s == 1.0
    h.manager.start()
    await eventually(lambda: bool(started_pids(pid_file)), timeout_s=30)
    server, child = started_pids(pid_file)
    # wait_ready's default ends with the server's own bound (a pytest timeout would catch a minute's wait).
    await h.manager.wait_ready()
    assert h.manager.status()["hung"] == "failed: no answer within 1 s"
    [notice] = h.notices
    log = tmp_path / "logs" / "mcp-hung.log"
    assert notice.message == f"MCP server 'hung' failed to start: no answer within 1 s (server log: {log})"
    # It ignores SIGTERM and its stdin closing; SIGKILL to its process group ends it and its child.
    await h.manager.aclose()
    await gone(server, child)


async def test_closing_while_a_server_still_connects_kills_its_whole_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    h = Harness([hung_spec("slow", pid_file)], tmp_path)
    h.manager.start()
    await eventually(lambda: bool(started_pids(pid_file)), timeout_s=30)
    server, child = started_pids(pid_file)
    assert h.manager.status()["slow"] == "connecting"
    # The session ends before the server answered: its connection is cancelled, its clean-up still runs.
    await h.manager.aclose()
    assert h.manager.status()["slow"] == "disconnected"
    assert h.notices == []
    await gone(server, child)


async def test_a_server_that_died_is_connected_again_by_restart(tmp_path: Path) -> None:
    h = Harness([stdio_spec("victim")], tmp_path)
    h.manager.start()
    await h.manager.wait_ready()
    try:
        assert h.manager.status() == {"victim": "connected"}
        kill_child("--name victim")
        await eventually(lambda: h.manager.status()["victim"].startswith("failed"))
        assert "mcp_victim_add" not in {t.name for t in h.registry.tools()}
        assert await h.manager.restart(["victim", "nope"]) == ["nope"]
        assert h.manager.status() == {"victim": "connected"}
        assert (await h.call("victim", "add", a=4, b=5)).llm_content == wrap_untrusted("9")
    finally:
        await h.manager.aclose()
