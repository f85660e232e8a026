"""Tests for run_shell_command on real bash processes in temp directories."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
from pathlib import Path

import pytest

from agent_lsp.errors import ToolError
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.shell import ShellTool
from agent_lsp.workspace.filesystem import LocalFileSystem
from agent_lsp.workspace.roots import Workspace


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "ws"
    r.mkdir()
    return r


@pytest.fixture
def ctx(root: Path, tmp_path: Path) -> ToolContext:
    return ToolContext(Workspace([root]), LocalFileSystem(), tmp_path / "tmp", shell_inactivity_timeout_s=30.0)


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie waiting to be reaped."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


async def wait_gone(pid: int, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        await asyncio.sleep(0.02)
    return not alive(pid)


async def run(ctx: ToolContext, **params: object) -> tuple[str, str | None, list[str]]:
    chunks: list[str] = []
    tool = ShellTool(ctx)
    assert tool.validate(dict(params)) is None
    result = await tool.build(dict(params)).execute(chunks.append)
    assert isinstance(result.llm_content, str)
    return result.llm_content, result.error, chunks


async def test_success_result_is_gemini_cli_text(ctx: ToolContext) -> None:
    text, error, chunks = await run(ctx, command="echo hello; echo warn >&2")
    assert error is None
    # Gemini CLI 0.61: Output, then Exit Code only when non-zero, Background PIDs only when any, the PGID.
    assert re.fullmatch(
        r"<untrusted_context>\nOutput: hello\nwarn\nProcess Group PGID: \d+\n</untrusted_context>", text
    ), text
    assert "".join(chunks) == "hello\nwarn\n"


async def test_background_pids_are_listed_when_there_are_some(ctx: ToolContext) -> None:
    text, _, _ = await run(ctx, command="sleep 0.2 & echo started")
    assert re.search(r"\nBackground PIDs: \d+\nProcess Group PGID: \d+\n", text), text


async def test_live_chunks_arrive_before_the_command_exits(ctx: ToolContext, root: Path) -> None:
    marker = root / "second-half-started"
    seen_marker_at_first_chunk: list[bool] = []

    def sink(chunk: str) -> None:
        if not seen_marker_at_first_chunk:
            seen_marker_at_first_chunk.append(marker.exists())

    tool = ShellTool(ctx)
    inv = tool.build({"command": f"echo first; sleep 0.6; touch {marker.name}; echo second"})
    result = await inv.execute(sink)
    assert seen_marker_at_first_chunk == [False]
    assert marker.exists()
    assert "first\nsecond" in str(result.llm_content)


async def test_non_zero_exit_code_is_reported(ctx: ToolContext) -> None:
    text, error, _ = await run(ctx, command="echo oops >&2; exit 7")
    assert "Exit Code: 7" in text
    assert "oops" in text
    assert error is None  # a failing command is information for the model, not a tool failure


async def test_cancel_kills_the_whole_process_group(ctx: ToolContext) -> None:
    got_pid = asyncio.Event()
    chunks: list[str] = []

    def sink(chunk: str) -> None:
        chunks.append(chunk)
        if "PID=" in "".join(chunks):
            got_pid.set()

    inv = ShellTool(ctx).build({"command": "sleep 30 & echo PID=$!; wait"})
    task = asyncio.create_task(inv.execute(sink))
    await asyncio.wait_for(got_pid.wait(), 5)
    m = re.search(r"PID=(\d+)", "".join(chunks))
    assert m
    child = int(m.group(1))
    assert alive(child)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_gone(child), "the backgrounded sleep outlived the cancelled command"


async def test_inactivity_timeout_stops_a_silent_command(ctx: ToolContext) -> None:
    ctx.shell_inactivity_timeout_s = 0.5
    started = time.monotonic()
    text, error, _ = await run(ctx, command="echo start; sleep 20; echo never")
    assert time.monotonic() - started < 5
    assert error is not None and "0.5 s" in error
    output = text.split("Output: ", 1)[1].split("\nError: ", 1)[0]
    assert output == "start"
    assert "Background PIDs" not in text
    assert "Signal: SIGTERM" in text


async def test_steady_output_keeps_a_long_command_alive(ctx: ToolContext) -> None:
    ctx.shell_inactivity_timeout_s = 0.5
    text, error, _ = await run(ctx, command="for i in 1 2 3 4 5 6; do echo tick$i; sleep 0.2; done")
    assert error is None
    assert "tick6" in text and "Exit Code" not in text


async def test_command_substitution_is_refused_without_running_anything(ctx: ToolContext, root: Path) -> None:
    tool = ShellTool(ctx)
    for command, construct in [
        (f"echo $(touch {root}/marker)", "$(...)"),
        (f"echo `touch {root}/marker`", "`...`"),
        (f"cat <(touch {root}/marker)", "<(...)"),
    ]:
        message = tool.validate({"command": command})
        assert message is not None and construct in message
        with pytest.raises(ToolError):
            tool.build({"command": command})
    await asyncio.sleep(0.1)
    assert not (root / "marker").exists()


async def test_a_substitution_joined_by_a_line_continuation_is_refused(ctx: ToolContext, root: Path) -> None:
    # Issue 11: bash reads `$\` + newline + `(` as `$(`; the tool refuses it before bash sees it.
    tool = ShellTool(ctx)
    for command in ("git status $\\\n(touch MARKER)", "echo a\\\n#$(touch MARKER)", 'echo "$\\\n(touch MARKER)"'):
        message = tool.validate({"command": command})
        assert message is not None and "$(...)" in message, command
        with pytest.raises(ToolError):
            tool.build({"command": command})
    await asyncio.sleep(0.1)
    assert not (root / "MARKER").exists()


async def test_arithmetic_is_not_a_substitution(ctx: ToolContext) -> None:
    text, _, _ = await run(ctx, command="echo $((1+2))")
    assert "Output: 3" in text


async def test_bytes_bash_cannot_receive_are_refused(ctx: ToolContext) -> None:
    tool = ShellTool(ctx)
    assert "NUL" in (tool.validate({"command": "echo a\x00b"}) or "")
    assert "surrogate" in (tool.validate({"command": "echo \ud800"}) or "")


async def test_single_quoted_substitution_text_runs(ctx: ToolContext) -> None:
    text, _, _ = await run(ctx, command="echo '$(not run)'")
    assert "Output: $(not run)" in text


async def test_dir_path_inside_is_used_and_outside_refused(ctx: ToolContext, root: Path, tmp_path: Path) -> None:
    (root / "sub").mkdir()
    text, _, _ = await run(ctx, command="pwd", dir_path="sub")
    assert f"Output: {root / 'sub'}" in text
    tool = ShellTool(ctx)
    message = tool.validate({"command": "ls", "dir_path": str(tmp_path)})
    assert message is not None and "outside the workspace" in message
    assert "not an existing directory" in (tool.validate({"command": "ls", "dir_path": "nope"}) or "")


async def test_confirmation_names_the_root_commands(ctx: ToolContext) -> None:
    inv = ShellTool(ctx).build({"command": "git add . && FOO=1 npm test | tee log", "description": "test"})
    details = await inv.confirmation()
    assert details.type == "exec"
    assert details.command == "git add . && FOO=1 npm test | tee log"
    assert details.root_commands == ("git", "npm", "tee")
    # The title is the command itself (the model's description of it is not what runs).
    assert inv.describe() == details.title == "git add . && FOO=1 npm test | tee log"
    hidden = ShellTool(ctx).build({"command": "case a in a) rm x;; esac; function f { sudo rm y; }; f"})
    assert (await hidden.confirmation()).root_commands == ("rm", "sudo", "f")


async def test_stdin_is_closed(ctx: ToolContext) -> None:
    started = time.monotonic()
    text, _, _ = await run(ctx, command="cat; echo after-cat")
    assert "after-cat" in text
    assert time.monotonic() - started < 5


async def test_utf8_split_across_chunks_is_decoded(ctx: ToolContext) -> None:
    text, _, chunks = await run(ctx, command="printf 'caf\\xc3'; sleep 0.3; printf '\\xa9!\\n'")
    assert "Output: café!" in text
    assert "\ufffd" not in "".join(chunks)


async def test_background_jobs_are_reported(ctx: ToolContext) -> None:
    text, _, _ = await run(ctx, command="sleep 30 & echo started")
    m = re.search(r"Background PIDs: (\d+)", text)
    assert m, text
    pid = int(m.group(1))
    try:
        assert alive(pid)  # a finished command does not take its jobs down with it
    finally:
        os.kill(pid, signal.SIGKILL)


async def test_is_background_returns_promptly_with_pid(ctx: ToolContext, root: Path) -> None:
    started = time.monotonic()
    text, error, _ = await run(ctx, command="echo up > started.txt; sleep 30", is_background=True)
    assert time.monotonic() - started < 2
    assert error is None
    # Gemini CLI 0.61's words for a command still running after its delay.
    m = re.search(r"Command is running in background\. PID: (\d+)\. Initial output:", text)
    assert m, text
    pid = int(m.group(1))
    try:
        assert alive(pid)
        for _ in range(100):
            if (root / "started.txt").exists():
                break
            await asyncio.sleep(0.02)
        assert (root / "started.txt").read_text() == "up\n"
    finally:
        os.killpg(pid, signal.SIGKILL)
    assert await wait_gone(pid)


async def test_is_background_that_fails_at_once_reports_it(ctx: ToolContext) -> None:
    text, _, _ = await run(ctx, command="echo broken >&2; exit 4", is_background=True)
    assert "Exit Code: 4" in text
    assert "broken" in text


async def test_long_output_is_whole_for_the_model_and_capped_for_display(ctx: ToolContext) -> None:
    tool = ShellTool(ctx)
    assert tool.truncate_output  # the scheduler cuts it for the model and saves the full text
    result = await tool.build({"command": "seq 1 100000"}).execute(lambda _c: None)
    assert "Output: 1\n2\n3\n" in str(result.llm_content)
    assert "100000\nProcess Group PGID: " in str(result.llm_content)
    assert result.display is not None and len(result.display) < 21_000
    assert result.display.endswith("99999\n100000")
    assert result.display.startswith("[... ")
