"""The agent as a whole with real MCP servers: a hung one is reported within its timeout while the others work,
and no server process (nor anything it started) outlives the agent. Real subprocesses, headless and ACP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.replay_lines import call_line, text_line

from .test_lifecycle import HUNG, alive, started_pids
from .third_party_servers import NODE_BIN, installed


def _world(tmp_path: Path, servers: dict[str, object]) -> tuple[Path, dict[str, str]]:
    home, project = tmp_path / "home", tmp_path / "project"
    for folder in (home / ".gemini", project):
        folder.mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": servers}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "OPENAI"))}
    env.update(HOME=str(home), AGENT_LSP_HOME=str(home / ".agent-lsp"), AGENT_LSP_TRUST_WORKSPACE="true")
    return project, env


def _hung(pid_file: Path, **settings: object) -> dict[str, object]:
    return {"command": sys.executable, "args": [str(HUNG), "--pid-file", str(pid_file)], **settings}


def _gone(*pids: int) -> bool:
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_headless_reports_a_hung_server_within_its_timeout_and_leaves_nothing_running(tmp_path: Path) -> None:
    pid_file = tmp_path / "hung.pids"
    everything = {"command": installed(NODE_BIN / "mcp-server-everything"), "args": ["stdio"], "trust": True}
    project, env = _world(tmp_path, {"hung": _hung(pid_file, timeout=1000), "everything": everything})
    script = tmp_path / "script.jsonl"
    lines = [call_line("mcp_everything_echo", {"message": "through the agent"}), text_line("It echoed.")]
    script.write_text("".join(json.dumps(line) + "\n" for line in lines))
    argv = [sys.executable, "-m", "agent_lsp", "run", "--fake-responses", str(script), "-o", "stream-json", "go"]
    done = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    log = Path(env["AGENT_LSP_HOME"]) / "logs" / "mcp-hung.log"
    assert f"MCP server 'hung' failed to start: no answer within 1 s (server log: {log})" in done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert result["status"] == "success", result
    assert any(e["type"] == "message" and e.get("content") == "It echoed." for e in events)
    server, child = started_pids(pid_file)
    assert _gone(server, child)


def test_an_editor_closing_the_acp_agent_stops_a_server_still_connecting(tmp_path: Path) -> None:
    pid_file = tmp_path / "hung.pids"
    project, env = _world(tmp_path, {})
    script = tmp_path / "empty.jsonl"  # the replay model: no credentials needed, no prompt sent
    script.write_text("")
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_lsp", "acp", "--fake-responses", str(script)],
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        hung = {"name": "hung", "command": sys.executable, "args": [str(HUNG), "--pid-file", str(pid_file)], "env": []}
        for rid, method, params in [
            (1, "initialize", {"protocolVersion": 1}),
            (2, "session/new", {"cwd": str(project), "mcpServers": [hung]}),
        ]:
            frame = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
            proc.stdin.write(json.dumps(frame).encode() + b"\n")
            proc.stdin.flush()
        deadline = time.monotonic() + 60
        while not started_pids(pid_file):
            assert time.monotonic() < deadline and proc.poll() is None, "the server never started"
            time.sleep(0.05)
        server, child = started_pids(pid_file)
        proc.stdin.close()  # the editor goes away while the server has not answered (it never will)
        assert proc.wait(timeout=30) == 0
        assert _gone(server, child)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
