"""Closing an agent that has already exited is fine: the harness's cleanup (every ACP test's) neither raises
ProcessLookupError nor hangs, also when its grace period ends just as the agent is gone (the race seen under load,
where the SDK's own cleanup signalled a process that had exited a moment before)."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from tests.acp.editor import EditorClient, spawn_agent
from tests.acp.harness import agent_argv
from tests.processes import close_process


async def _gone(proc: asyncio.subprocess.Process) -> None:
    """Until the exited agent's transport is closed: the state in which any signal raises ProcessLookupError."""
    while True:
        try:
            proc.send_signal(signal.SIGCONT)
        except ProcessLookupError:
            return
        await asyncio.sleep(0.01)


async def test_closing_an_agent_that_already_exited(project: Path, env: dict[str, str]) -> None:
    editor = EditorClient()
    async with spawn_agent(editor, agent_argv(None), env=env, cwd=project, observers=[editor.observe]) as (conn, proc):
        await conn.initialize(protocol_version=1, client_capabilities=editor.capabilities())
        proc.kill()  # the agent dies under the client: the context's cleanup below must still close cleanly
        assert await proc.wait() == -signal.SIGKILL
        await _gone(proc)
        # No grace at all: the wait gives up at once, so both terminate and kill reach a process already gone.
        assert await close_process(proc, grace=0) == -signal.SIGKILL
    assert proc.returncode == -signal.SIGKILL


async def test_closing_an_agent_that_exited_by_itself(project: Path, env: dict[str, str]) -> None:
    """The agent ends at end of input; closing it afterwards (as every test's cleanup does) is a no-op."""
    editor = EditorClient()
    async with spawn_agent(editor, agent_argv(None), env=env, cwd=project, observers=[editor.observe]) as (conn, proc):
        await conn.initialize(protocol_version=1, client_capabilities=editor.capabilities())
        assert proc.stdin is not None
        proc.stdin.close()
        assert await proc.wait() == 0
        await _gone(proc)
        assert await close_process(proc, grace=0) == 0
