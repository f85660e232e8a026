"""The MCP pool in process (agent_lsp/mcp/pool.py): two sessions' managers on one pool share one real stdio server;
each has the tools in its own registry; restarts asked by both at once start one new process; a session whose
roots change while it shares its server moves to a server for its roots; the last release stops the process."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_lsp.mcp.pool import McpPool
from agent_lsp.tools.registry import ToolRegistry

from .conftest import Harness, child_pids, eventually, stdio_spec


def _servers(marker: str) -> list[int]:
    return [pid for pid, cmd in child_pids().items() if marker in cmd]


async def test_two_sessions_share_one_process_and_one_restart(tmp_path: Path) -> None:
    pool = McpPool(log_dir=tmp_path / "logs")
    spec = stdio_spec("pooled-a")
    one = Harness([spec], tmp_path, pool=pool, roots=lambda: [tmp_path])
    two = Harness([spec], tmp_path, registry=ToolRegistry(), pool=pool, roots=lambda: [tmp_path])
    try:
        one.manager.start()
        two.manager.start()
        await asyncio.gather(one.manager.wait_ready(), two.manager.wait_ready())
        assert len(_servers("pooled-a")) == 1
        assert "echo" in one.server_tools("pooled-a") and "echo" in two.server_tools("pooled-a")
        assert (await two.call("pooled-a", "echo", text="shared")).llm_content
        [before] = _servers("pooled-a")
        # Both sessions ask at once: one restart answers both, so one new process (never two).
        await asyncio.gather(one.manager.restart(), two.manager.restart())
        await eventually(lambda: before not in _servers("pooled-a"))
        assert len(_servers("pooled-a")) == 1 and one.manager.status() == {"pooled-a": "connected"}
        assert "echo" in two.server_tools("pooled-a")
        await one.manager.aclose()
        assert one.server_tools("pooled-a") == set() and len(_servers("pooled-a")) == 1  # two still holds it
        assert one.manager.status() == {"pooled-a": "disconnected"}
        assert (await two.call("pooled-a", "echo", text="still here")).error is None
    finally:
        await one.manager.aclose()
        await two.manager.aclose()
    await eventually(lambda: _servers("pooled-a") == [])


async def test_a_session_whose_roots_change_moves_to_a_server_for_them(tmp_path: Path) -> None:
    pool = McpPool(log_dir=tmp_path / "logs")
    spec = stdio_spec("pooled-b")
    first, second = tmp_path / "first", tmp_path / "second"
    folders = [first]
    one = Harness([spec], tmp_path, pool=pool, roots=lambda: [first])
    two = Harness([spec], tmp_path, registry=ToolRegistry(), pool=pool, roots=lambda: list(folders))
    try:
        one.manager.start()
        two.manager.start()
        await asyncio.gather(one.manager.wait_ready(), two.manager.wait_ready())
        [shared] = _servers("pooled-b")
        folders[:] = [second]
        two.manager.roots_changed()
        await eventually(lambda: len(_servers("pooled-b")) == 2)  # its own server, for its own roots
        await two.manager.wait_ready()
        await eventually(lambda: "echo" in two.server_tools("pooled-b"))
        assert shared in _servers("pooled-b")  # the first session keeps the one it had
        await one.manager.aclose()
        await eventually(lambda: shared not in _servers("pooled-b"))
        assert len(_servers("pooled-b")) == 1
    finally:
        await one.manager.aclose()
        await two.manager.aclose()
    await eventually(lambda: _servers("pooled-b") == [])


async def test_a_shared_server_killed_mid_way_fails_for_both_and_one_restart_serves_both(tmp_path: Path) -> None:
    """kill -9 of a server two sessions share: both sessions lose its tools (the model is not offered a dead
    server's tools) and see it disconnected, nothing hangs, and one session's restart brings it back for both."""
    import os
    import signal

    pool = McpPool(log_dir=tmp_path / "logs")
    spec = stdio_spec("pooled-k")
    one = Harness([spec], tmp_path, pool=pool, roots=lambda: [tmp_path])
    two = Harness([spec], tmp_path, registry=ToolRegistry(), pool=pool, roots=lambda: [tmp_path])
    try:
        one.manager.start()
        two.manager.start()
        await asyncio.gather(one.manager.wait_ready(), two.manager.wait_ready())
        [pid] = _servers("pooled-k")
        os.kill(pid, signal.SIGKILL)
        await eventually(lambda: pid not in _servers("pooled-k"))
        await eventually(lambda: one.server_tools("pooled-k") == set() == two.server_tools("pooled-k"))
        assert one.manager.status()["pooled-k"] != "connected" and two.manager.status()["pooled-k"] != "connected"
        await asyncio.wait_for(one.manager.restart(), 30)
        await eventually(lambda: len(_servers("pooled-k")) == 1 and "echo" in two.server_tools("pooled-k"))
        assert two.manager.status() == {"pooled-k": "connected"}
        assert (await two.call("pooled-k", "echo", text="back")).error is None
    finally:
        await one.manager.aclose()
        await two.manager.aclose()
    await eventually(lambda: _servers("pooled-k") == [])
