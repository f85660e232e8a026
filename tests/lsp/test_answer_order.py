"""The order on the wire: a request's answer goes out before anything the request set going (docs/protocol.md, "Order").

Each request that can start server-to-client traffic is sent over raw pipes to a real server subprocess by a
scripted client that answers the server's own requests at once; the test reads every frame in the order it was
written. Eglot waits for an answer synchronously and loses a question that arrives in the same read before it.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_lsp.adapters.lsp.documents import path_to_uri
from tests.lsp.conftest import server_env
from tests.lsp.frames import frame, read_frame
from tests.replay_lines import call_line, text_line

WAIT_S = 30.0
Frame = dict[str, Any]
# What the scripted client answers to the server's requests (window/showMessageRequest: the first choice).
ANSWERS: dict[str, Any] = {
    "window/workDoneProgress/create": None,
    "workspace/applyEdit": {"applied": True},
    "workspace/configuration": [None],
    "agent/requestPermission": {"outcome": {"outcome": "selected", "optionId": "proceed_once"}},
}
PLAIN = {
    "workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True}},
    "window": {"workDoneProgress": True},
}
AGENT = {**PLAIN, "experimental": {"agent": {"permissionRequests": True}}}


class Wire:
    """A client over the server's pipes that records every frame the server writes, in order."""

    def __init__(self, tmp_path: Path, script: list[Frame], caps: Frame) -> None:
        self.project = tmp_path / "project"
        self.project.mkdir(exist_ok=True)
        responses = tmp_path / "responses.jsonl"
        responses.write_text("".join(json.dumps(line) + "\n" for line in script))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "agent_lsp", "lsp", "--fake-responses", str(responses)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=server_env(tmp_path),
            cwd=self.project,
        )
        self.frames: queue.Queue[Frame | None] = queue.Queue()
        self._lock = threading.Lock()
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        uri = path_to_uri(self.project)
        params = {"processId": None, "rootUri": uri, "capabilities": caps}
        rid = self.request("initialize", {**params, "workspaceFolders": [{"uri": uri, "name": "p"}]})
        self.before_initialized = before_answer(self.frames_until(lambda m: is_answer(m, rid)), rid)
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def _read(self) -> None:
        assert self.proc.stdout is not None
        while (message := read_frame(self.proc.stdout)) is not None:
            self.frames.put(message)
            if "method" in message and "id" in message:  # the server asks: answer at once, like a quick user
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": answer(message)})
        self.frames.put(None)

    def send(self, message: Frame) -> None:
        assert self.proc.stdin is not None
        with self._lock:
            self.proc.stdin.write(frame(message))
            self.proc.stdin.flush()

    def request(self, method: str, params: Any) -> int:
        self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        return self._next_id

    def frames_until(self, done: Callable[[Frame], bool]) -> list[Frame]:
        """Every frame up to and including the first for which ``done`` holds."""
        seen: list[Frame] = []
        while True:
            message = self.frames.get(timeout=WAIT_S)
            assert message is not None, f"the server closed its output; frames so far: {seen}"
            seen.append(message)
            if done(message):
                return seen

    def call(self, method: str, params: Any) -> Any:
        rid = self.request(method, params)
        (*_, answer) = self.frames_until(lambda m: is_answer(m, rid))
        assert "error" not in answer, answer
        return answer.get("result")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.call("shutdown", None)
            self.send({"jsonrpc": "2.0", "method": "exit"})
        self.proc.wait(timeout=WAIT_S)


def answer(request: Frame) -> Any:
    if request["method"] == "window/showMessageRequest":
        return request["params"]["actions"][0]
    return ANSWERS.get(request["method"])


def is_answer(message: Frame, rid: int) -> bool:
    return message.get("id") == rid and "method" not in message


def shown(text: str) -> Callable[[Frame], bool]:
    """The plain client's last frame of a turn: the agent's answer shown with window/showMessage."""
    return lambda m: m.get("method") == "window/showMessage" and text in m["params"]["message"]


def before_answer(frames: list[Frame], rid: int) -> list[str]:
    """What the server sent between receiving request ``rid`` and answering it."""
    index = next(i for i, m in enumerate(frames) if is_answer(m, rid))
    return [describe(m) for m in frames[:index]]


def describe(message: Frame) -> str:
    method = message.get("method", "answer")
    update = (message.get("params") or {}).get("update")
    return f"{method}:{update['sessionUpdate']}" if isinstance(update, dict) else method


@pytest.fixture
def wire(tmp_path: Path) -> Iterator[Callable[..., Wire]]:
    started: list[Wire] = []

    def start(script: list[Frame], caps: Frame) -> Wire:
        started.append(client := Wire(tmp_path, script, caps))
        return client

    yield start
    for client in started:
        try:
            client.close()
        finally:
            if client.proc.poll() is None:
                client.proc.kill()
            client.proc.wait(timeout=WAIT_S)


def _context(wire: Wire, **extra: Any) -> Frame:
    path = wire.project / "calc.py"
    uri = path_to_uri(path)
    text = path.read_text()
    doc = {"uri": uri, "languageId": "python", "version": 1, "text": text}
    wire.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": doc}})
    rng = {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 16}}
    return {"uri": uri, "range": rng, **extra}


def test_every_command_of_a_plain_client_is_answered_before_its_turn_starts(wire: Callable[..., Wire]) -> None:
    """Eglot, vim-lsp: ``workspace/executeCommand`` answers null at once; the turn's question, progress and
    edits all follow the answer."""
    script = [
        text_line("Commented."),  # agent.editSelection, after the question
        text_line("It subtracts."),  # agent.explain
        call_line("replace", {"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}),
        text_line("Fixed."),  # agent.fix: permission question, applyEdit
        text_line("Hello."),  # agent.prompt
    ]
    client = wire(script, PLAIN)
    (client.project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    diag = {"range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 16}}, "message": "sign"}
    commands = [
        ("agent.editSelection", [_context(client)], "Commented."),
        ("agent.explain", [_context(client)], "It subtracts."),
        ("agent.fix", [_context(client, diagnostics=[diag])], "Fixed."),
        ("agent.prompt", ["say hello"], "Hello."),
    ]
    seen: dict[str, list[str]] = {}
    for command, arguments, reply in commands:
        rid = client.request("workspace/executeCommand", {"command": command, "arguments": arguments})
        frames = client.frames_until(shown(reply))
        seen[command] = before_answer(frames, rid)
        sent = {describe(m) for m in frames}
        assert "window/workDoneProgress/create" in sent and "$/progress" in sent, (command, sent)
        if command in ("agent.editSelection", "agent.fix"):  # how to edit; whether to apply the edit
            assert "window/showMessageRequest" in sent, (command, sent)
        if command == "agent.fix":
            assert "workspace/applyEdit" in sent, sent
    rid = client.request("workspace/executeCommand", {"command": "agent.cancel", "arguments": []})
    seen["agent.cancel"] = before_answer(client.frames_until(lambda m: is_answer(m, rid)), rid)
    assert seen == {command: [] for command in seen}


def test_agent_requests_answer_before_what_they_set_going(wire: Callable[..., Wire]) -> None:
    """Our own clients: each ``agent/*`` request's answer comes before the updates that follow it; a turn's
    own traffic (agent/prompt, a command run as a turn) is what its answer waits for, so it comes first."""
    script = [text_line("Hello."), text_line("It subtracts.")]
    client = wire(script, AGENT)
    commands = client.project / ".gemini" / "commands"
    commands.mkdir(parents=True)
    (commands / "greet.toml").write_text('description = "Greets"\nprompt = "Say hello"\n')
    (client.project / "calc.py").write_text("def add(a, b):\n    return a - b\n")

    assert client.before_initialized == []
    rid = client.request("agent/newSession", {"cwd": str(client.project)})
    frames = client.frames_until(lambda m: describe(m) == "agent/update:available_commands_update")
    assert before_answer(frames, rid) == []  # the custom command is announced behind the answer
    session = next(m for m in frames if is_answer(m, rid))["result"]["sessionId"]

    rid = client.request("agent/setMode", {"sessionId": session, "modeId": "auto_edit"})
    assert set(before_answer(client.frames_until(lambda m: is_answer(m, rid)), rid)) <= {
        "agent/update:current_mode_update"  # the change the answer confirms
    }
    rid = client.request("agent/setModel", {"sessionId": session, "modelId": "gemini-2.5-flash"})
    assert before_answer(client.frames_until(lambda m: is_answer(m, rid)), rid) == []

    rid = client.request("agent/prompt", {"sessionId": session, "prompt": "hi"})
    turn = before_answer(client.frames_until(lambda m: is_answer(m, rid)), rid)
    assert "window/workDoneProgress/create" in turn and "agent/update:agent_message_chunk" in turn

    arguments = [_context(client)]
    rid = client.request("workspace/executeCommand", {"command": "agent.explain", "arguments": arguments})
    turn = before_answer(client.frames_until(lambda m: is_answer(m, rid)), rid)
    assert "agent/update:agent_message_chunk" in turn  # our clients get the stop reason as the answer

    rid = client.request("agent/loadSession", {"sessionId": session, "cwd": str(client.project)})
    frames = client.frames_until(lambda m: is_answer(m, rid))
    replayed = [m for m in frames[:-1] if (m.get("params") or {}).get("replay")]
    assert replayed and before_answer(frames, rid) == [describe(m) for m in replayed]  # the replay only

    rid = client.request("shutdown", None)  # closes the session (its SessionEnd) before answering
    assert before_answer(client.frames_until(lambda m: is_answer(m, rid)), rid) == []
    client.send({"jsonrpc": "2.0", "method": "exit"})
    assert client.proc.wait(timeout=WAIT_S) == 0
