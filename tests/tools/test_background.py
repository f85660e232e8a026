"""Background processes on real bash: started with is_background, listed, read, stopped with the session."""

from __future__ import annotations

import asyncio
import os
import re
import time
from pathlib import Path

import pytest

from agent_lsp.tools.background_tools import ListBackgroundProcessesTool, ReadBackgroundOutputTool
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.shell import ShellTool
from agent_lsp.workspace.filesystem import LocalFileSystem
from agent_lsp.workspace.roots import Workspace
from tests.tools.test_shell import alive, wait_gone


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "ws"
    root.mkdir()
    return ToolContext(Workspace([root]), LocalFileSystem(), tmp_path / "tmp", shell_inactivity_timeout_s=30.0)


async def call(tool: object, **params: object) -> tuple[str, str | None]:
    assert tool.validate(dict(params)) is None  # type: ignore[attr-defined]
    result = await tool.build(dict(params)).execute(lambda _c: None)  # type: ignore[attr-defined]
    return str(result.llm_content), result.error


async def start(ctx: ToolContext, command: str, **params: object) -> int:
    text, error = await call(ShellTool(ctx), command=command, is_background=True, **params)
    assert error is None, text
    m = re.search(r"PID: (\d+)", text)
    assert m, text
    return int(m.group(1))


async def test_started_listed_read_and_stopped_with_the_session(ctx: ToolContext) -> None:
    pid = await start(ctx, "for i in 1 2 3 4 5; do echo line$i; done; (sleep 30; echo never) & sleep 30")
    child_pids: list[int] = []
    try:
        listed, _ = await call(ListBackgroundProcessesTool(ctx.processes))
        assert f"- [PID {pid}] RUNNING: `for i in" in listed
        out, error = await call(ReadBackgroundOutputTool(ctx.processes), pid=pid, lines=2, delay_ms=100)
        assert error is None
        assert out.endswith("Showing last 2 of 5 lines:\nline4\nline5\n</untrusted_context>")
        whole, _ = await call(ReadBackgroundOutputTool(ctx.processes), pid=pid)
        assert "Full Log Output:\nline1\nline2\nline3\nline4\nline5" in whole
        child_pids = [int(p) for p in os.listdir("/proc") if p.isdigit() and _pgid(int(p)) == pid]
        assert len(child_pids) >= 2  # the leader and the subshell it left sleeping
    finally:
        await ctx.processes.aclose()  # what SessionHandle.aclose does when the session ends
    for p in child_pids:
        assert await wait_gone(p), f"{p} outlived the session"
    listed, _ = await call(ListBackgroundProcessesTool(ctx.processes))
    assert f"- [PID {pid}] EXITED: " in listed and "(Signal: SIGTERM)" in listed


async def test_delay_ms_returns_what_it_printed_first(ctx: ToolContext) -> None:
    started = time.monotonic()
    text, _ = await call(ShellTool(ctx), command="echo ready; sleep 30", is_background=True, delay_ms=400)
    assert time.monotonic() - started >= 0.4
    assert "Initial output:\nready" in text
    await ctx.processes.aclose()


async def test_a_pid_this_session_did_not_start_is_refused(ctx: ToolContext) -> None:
    text, error = await call(ReadBackgroundOutputTool(ctx.processes), pid=os.getpid())
    assert error is not None
    assert text == f"Access denied. Background process ID {os.getpid()} not found in this session's history."
    listed, _ = await call(ListBackgroundProcessesTool(ctx.processes))
    assert listed == "No background processes found."


async def test_a_finished_command_shows_its_exit_code(ctx: ToolContext) -> None:
    pid = await start(ctx, "sleep 0.3; echo done; exit 3", delay_ms=0)
    for _ in range(100):
        if ctx.processes.get(pid) and ctx.processes.get(pid).returncode is not None:  # type: ignore[union-attr]
            break
        await asyncio.sleep(0.02)
    listed, _ = await call(ListBackgroundProcessesTool(ctx.processes))
    assert listed.endswith("(Exit Code: 3)")
    out, _ = await call(ReadBackgroundOutputTool(ctx.processes), pid=pid)
    assert "Full Log Output:\ndone" in out
    assert alive(pid) is False


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


async def test_the_tasks_command_lists_shows_and_stops_them_for_the_user(ctx: ToolContext) -> None:
    from agent_lsp.tools.background_command import tasks_command

    processes = ctx.processes
    assert (await tasks_command(processes, "")).startswith("No background processes.")
    server = await start(ctx, "echo listening on 8000; sleep 30", delay_ms=200)
    try:
        listed = await tasks_command(processes, "")
        assert f"- [PID {server}] RUNNING: `echo listening on 8000; sleep 30`" in listed
        shown = await tasks_command(processes, str(server))
        assert shown == (
            f"[PID {server}] RUNNING: `echo listening on 8000; sleep 30`, the end of its output:\n\n"
            "```\nlistening on 8000\n```"
        )
        stopped = await tasks_command(processes, f"stop {server}")
        assert stopped == f"Stopped process {server} (`echo listening on 8000; sleep 30`): it was killed by SIGTERM."
        assert await wait_gone(server)
        assert "has already ended" in await tasks_command(processes, f"stop {server}")
        assert "has PID 1." in await tasks_command(processes, "1") and "Usage:" in await tasks_command(
            processes, "x y z"
        )
    finally:
        await processes.aclose()
