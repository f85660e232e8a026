"""Start-up over a real subprocess: ``initialize`` answered once by pygls (with our additions), and every message
sent meanwhile still handled in order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agent_lsp.adapters.lsp.capabilities import COMMANDS
from tests.lsp.conftest import server_env
from tests.lsp.frames import frame, read_frame


def _agent_methods() -> list[str]:
    """Every ``agent/*`` method the server registers a handler for (pygls's feature table, built in-process)."""
    from agent_lsp.adapters.launch import LaunchOptions
    from agent_lsp.adapters.lsp.ordering import AnswersFirst
    from agent_lsp.adapters.lsp.server import build_server

    server = build_server(LaunchOptions(), AnswersFirst(lambda _frame: None, lambda: None, lambda _id: None))
    return [name for name in server.protocol.fm.features if name.startswith("agent/")]


def test_initialize_is_answered_once_and_queued_messages_follow(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    uri = (project / "a.py").as_uri()
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            # Neovim offers UTF-8 first: the server keeps to UTF-16, which its document store counts in.
            "params": {"processId": None, "capabilities": {"general": {"positionEncodings": ["utf-8", "utf-16"]}}},
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": "x = 1\n"}},
        },
        {"jsonrpc": "2.0", "id": 2, "method": "agent/listSessions", "params": {"cwd": str(project)}},
        {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    (tmp_path / "none.jsonl").write_text("")
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_lsp", "lsp", "--fake-responses", str(tmp_path / "none.jsonl")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(tmp_path),
        cwd=project,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"".join(frame(m) for m in messages))
    proc.stdin.flush()
    answers = []
    while (message := read_frame(proc.stdout)) is not None:
        if "id" in message:
            answers.append(message)
    assert proc.wait(timeout=30) == 0
    assert proc.stderr is not None
    errors = proc.stderr.read().decode()
    assert "Traceback" not in errors and "ERROR" not in errors, errors
    # Requests are handled in order, but an answer may overtake a slower one's (listSessions reads the disk
    # in a thread while shutdown has nothing to wait for): JSON-RPC matches answers by id.
    assert answers[0]["id"] == 1 and sorted(a["id"] for a in answers) == [1, 2, 3]
    by_id = {a["id"]: a for a in answers}
    caps = by_id[1]["result"]["capabilities"]
    assert caps["experimental"]["agent"]["protocolVersion"] == 1
    # The advertised extension is the server's handler table: every agent/* method it serves, nothing else.
    served = _agent_methods()
    advertised = caps["experimental"]["agent"]["requests"] + caps["experimental"]["agent"]["notifications"]
    assert sorted(advertised) == sorted(served) and "agent/autoApprove" in advertised
    assert "agent/cancel" in caps["experimental"]["agent"]["notifications"]
    assert caps["experimental"]["agent"]["permissionRequests"] == "agent/requestPermission"
    assert "agent/steer" in caps["experimental"]["agent"]["requests"]
    assert caps["positionEncoding"] == "utf-16"
    assert caps["textDocumentSync"]["change"] == 2 and caps["textDocumentSync"]["save"] == {"includeText": False}
    assert sorted(caps["executeCommandProvider"]["commands"]) == sorted(COMMANDS)
    assert caps["codeActionProvider"]["codeActionKinds"] == ["quickfix", "refactor.rewrite"]
    assert caps["workspace"]["workspaceFolders"] == {"supported": True, "changeNotifications": True}
    assert by_id[1]["result"]["serverInfo"]["name"] == "agent-lsp"
    assert by_id[2]["result"] == {"sessions": [], "nextCursor": None}
    assert by_id[3]["result"] is None
