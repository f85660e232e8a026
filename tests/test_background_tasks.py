"""Background work has one owner per connection (agent_lsp/supervisor.py): no module starts a task of its own
with ``create_task`` / ``ensure_future`` unless the task is structured (awaited or cancelled by the code that made
it) and the module is listed below with why. And the supervisor does what it says."""

from __future__ import annotations

import ast
import asyncio
import logging

import pytest

from agent_lsp.supervisor import TaskSupervisor
from tests.core.test_layering import PACKAGE

# module (relative to agent_lsp/) → why its tasks are not background work a connection must own
STRUCTURED = {
    "supervisor.py": "the owner itself",
    "core/event_stream.py": "the prompt's own task: the stream awaits it, Session.cancel cancels it",
    "core/scheduler.py": "a TaskGroup's calls, awaited by the group",
    "core/approval.py": "the Notification hook, cancelled when the question is answered",
    "tools/grep_rg.py": "stderr drained beside the search, awaited by it",
    "tools/shell_process.py": "waits raced by the command's run, awaited or cancelled by it",
    "adapters/acp/jsonrpc.py": "a request's handler, owned by the connection's request table (cancel, close)",
    "mcp/connection.py": "an MCP server's connection, stopped by the pool (mcp/pool.py) on its last release or aclose",
    "mcp/manager.py": "following changed roots, held and cancelled by the manager's aclose",
    "mcp/oauth.py": "the sign-in page opener, cancelled when the sign-in ends",
    "code_intel/server.py": "a language server's stderr drain (ended by its stop) and the races bounding a request",
    "code_intel/session.py": "a cold server's start, awaited by the pool that shares it (closed with the front end)",
}
SPAWNERS = {"create_task", "ensure_future"}


def _spawn_calls(path: object) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))  # type: ignore[attr-defined]
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in SPAWNERS:
                lines.append(node.lineno)
    return lines


def test_no_task_is_started_outside_the_supervisor() -> None:
    found = {
        str(path.relative_to(PACKAGE)): lines for path in sorted(PACKAGE.rglob("*.py")) if (lines := _spawn_calls(path))
    }
    assert "supervisor.py" in found  # the scan sees calls
    stray = {where: lines for where, lines in found.items() if where not in STRUCTURED}
    assert stray == {}, "start background work with TaskSupervisor.spawn or SessionHandle.spawn"
    assert set(STRUCTURED) <= set(found), "a listed module no longer starts tasks: drop it from STRUCTURED"


async def test_the_supervisor_tracks_logs_failures_and_cancels_on_close(caplog: pytest.LogCaptureFixture) -> None:
    tasks = TaskSupervisor("conn")
    ended: list[str] = []
    release = asyncio.Event()

    async def waits() -> None:
        try:
            await release.wait()
        finally:
            ended.append("waits")

    async def fails() -> None:
        raise ValueError("broken on purpose")

    tasks.spawn(waits(), name="waiter")
    failing = tasks.spawn(fails(), name="failer")
    with caplog.at_level(logging.ERROR, logger="agent_lsp.supervisor"):
        await asyncio.gather(failing, return_exceptions=True)
        await asyncio.sleep(0)
    assert "conn: background task failer failed" in caplog.text and "broken on purpose" in caplog.text
    assert tasks.running == 1  # the failed one is forgotten, the waiting one held
    await tasks.aclose()
    assert ended == ["waits"] and tasks.running == 0  # cancelled, and its finally ran before aclose returned

    async def late() -> None:
        ended.append("late")

    with pytest.raises(RuntimeError, match="closed"):
        tasks.spawn(late())
    await asyncio.sleep(0)
    assert ended == ["waits"]  # nothing starts after close (the coroutine was closed unrun: no warning)
