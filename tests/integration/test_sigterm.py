"""SIGTERM (how editors and process managers stop an agent) ends it the way end of input does: the running tool
is stopped, SessionEnd hooks run, and the session's scratch folder is removed. Real subprocesses, real signals;
ACP, LSP and the headless command line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.integration.spawned import spawned
from tests.lsp.frames import frame, next_frame, open_session
from tests.replay_lines import call_line, text_line


def _wait_for(path: Path, timeout: float = 30) -> None:
    """Until ``path`` holds a whole line: the shell's ``echo $$ > file`` creates the file before it writes to it."""
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text().endswith("\n")):
        assert time.monotonic() < deadline, f"{path} never got its line"
        time.sleep(0.02)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone as far as work goes: it only waits for its parent to collect it.
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"


def _world(tmp_path: Path) -> tuple[Path, Path, dict[str, str], Path]:
    """A project, a private home whose SessionEnd hook leaves a mark, and a scratch TMPDIR of its own."""
    home, project, scratch = tmp_path / "home", tmp_path / "project", tmp_path / "tmp"
    for folder in (home / ".gemini", project, scratch):
        folder.mkdir(parents=True)
    ended = tmp_path / "ended"
    hook = home / "end.py"
    hook.write_text(f"import json, sys\nopen({str(ended)!r}, 'w').write(json.load(sys.stdin)['reason'])\n")
    hooks = {"SessionEnd": [{"hooks": [{"type": "command", "command": f"{sys.executable} {hook}"}]}]}
    (home / ".gemini" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "OPENAI"))}
    env.update(
        HOME=str(home), AGENT_LSP_HOME=str(home / ".agent-lsp"), AGENT_LSP_TRUST_WORKSPACE="true", TMPDIR=str(scratch)
    )
    return project, scratch, env, ended


def _long_command(tmp_path: Path, project: Path) -> tuple[Path, Path]:
    """A replay script whose shell command writes its pid and then waits a long time."""
    pid_file = tmp_path / "tool.pid"
    command = f"echo $$ > {pid_file}; exec sleep 60"
    lines = [call_line("run_shell_command", {"command": command}), text_line("done")]
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return script, pid_file


@contextmanager
def _agent(
    command: str, script: Path, project: Path, env: dict[str, str], *more: str
) -> Iterator[subprocess.Popen[bytes]]:
    """``agent-lsp <command>`` in yolo mode on the replay script; killed if a test leaves it running."""
    argv = [sys.executable, "-m", "agent_lsp", command, "--fake-responses", str(script), "--approval-mode", "yolo"]
    stdin = subprocess.DEVNULL if command == "run" else subprocess.PIPE
    with spawned([*argv, *more], cwd=project, env=env, stdin=stdin) as proc:
        yield proc


def _all_closed(ended: Path, scratch: Path, tool_pid: int) -> None:
    """The session was closed: its SessionEnd hook ran, its scratch folder is gone, its tool was stopped."""
    assert ended.read_text() == "exit"
    assert list(scratch.iterdir()) == []
    assert not _alive(tool_pid)


def test_sigterm_stops_a_headless_run_and_cleans_up(tmp_path: Path) -> None:
    project, scratch, env, ended = _world(tmp_path)
    script, pid_file = _long_command(tmp_path, project)
    with _agent("run", script, project, env, "go") as proc:
        _wait_for(pid_file)
        tool_pid = int(pid_file.read_text())
        assert [p.name for p in scratch.iterdir()] and _alive(tool_pid)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 130  # cancelled, as with Ctrl-C
    _all_closed(ended, scratch, tool_pid)


def test_sigterm_stops_the_acp_server_and_cleans_up(tmp_path: Path) -> None:
    project, scratch, env, ended = _world(tmp_path)
    script, pid_file = _long_command(tmp_path, project)
    with _agent("acp", script, project, env) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        stdin, stdout = proc.stdin, proc.stdout

        def call(rid: int, method: str, params: dict[str, object]) -> None:
            stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode() + b"\n")
            stdin.flush()

        def answer(rid: int) -> dict[str, object]:
            while line := stdout.readline():
                message: dict[str, object] = json.loads(line)
                if message.get("id") == rid and "method" not in message:
                    return message
            raise AssertionError("the agent closed its output")

        call(1, "initialize", {"protocolVersion": 1})
        answer(1)
        call(2, "session/new", {"cwd": str(project), "mcpServers": []})
        session = answer(2)["result"]
        assert isinstance(session, dict)
        call(3, "session/prompt", {"sessionId": session["sessionId"], "prompt": [{"type": "text", "text": "go"}]})
        _wait_for(pid_file)
        tool_pid = int(pid_file.read_text())
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 128 + signal.SIGTERM
    _all_closed(ended, scratch, tool_pid)


@pytest.mark.parametrize("end", ["sigterm", "end of input"])
def test_the_lsp_server_closes_its_sessions_without_a_shutdown_request(tmp_path: Path, end: str) -> None:
    """Without ``shutdown``/``exit`` (the editor went away, or stopped us with SIGTERM) the sessions still close."""
    project, scratch, env, ended = _world(tmp_path)
    script, pid_file = _long_command(tmp_path, project)
    with _agent("lsp", script, project, env) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        open_session(proc.stdin, project)
        while (answer := next_frame(proc.stdout)).get("id") != 2:
            pass
        params = {"sessionId": answer["result"]["sessionId"], "prompt": "go"}
        proc.stdin.write(frame({"jsonrpc": "2.0", "id": 3, "method": "agent/prompt", "params": params}))
        proc.stdin.flush()
        _wait_for(pid_file)
        tool_pid = int(pid_file.read_text())
        if end == "sigterm":
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=30) == 128 + signal.SIGTERM
        else:
            proc.stdin.close()
            assert proc.wait(timeout=30) == 0
    _all_closed(ended, scratch, tool_pid)
