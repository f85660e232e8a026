"""End to end: code actions lead, through workspace/executeCommand, to a prompt carrying the selection."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from tests.lsp.conftest import until
from tests.replay_lines import text_line


def _diag(line: int, message: str) -> dict[str, Any]:
    rng = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 5}}
    return {"range": rng, "message": message, "severity": 1, "source": "pyright"}


async def test_fix_with_agent_prompts_with_selection_and_diagnostics(launch: Any) -> None:
    editor = await launch([text_line("Here is the fix.")], experimental={"agent": {}})
    path = editor.project / "calc.py"
    path.write_text("def add(a, b):\n    return a - b\n")
    uri = editor.open(path)
    diag = _diag(1, "suspicious subtraction")
    actions = await editor.raw_request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 16}},
            "context": {"diagnostics": [diag]},
        },
    )
    titles = [a["title"] for a in actions]
    assert titles[0].startswith("Fix with agent")
    assert "Explain with agent" in titles and "Edit selection with agent…" in titles
    fix = actions[0]
    assert fix["kind"] == "quickfix" and fix["diagnostics"] == [diag]
    assert fix["command"]["command"] == "agent.fix"

    result = await editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(fix["command"]["command"], fix["command"]["arguments"])
    )
    assert result["stopReason"] == "end_turn"
    assert editor.messages() == "Here is the fix."
    session = result["sessionId"]
    # The recorded prompt, replayed by agent/loadSession, shows what the model was asked.
    editor.updates.clear()
    await editor.request("agent/loadSession", {"sessionId": session, "cwd": str(editor.project)})
    replayed = [u for u in editor.updates if u.get("replay")]
    (user,) = [u["update"]["content"]["text"] for u in replayed if u["update"]["sessionUpdate"] == "user_message_chunk"]
    assert str(path) in user and "line 2" in user
    assert "    return a - b" in user  # the selected text
    assert "suspicious subtraction" in user and "pyright" in user
    assert any(u["update"]["sessionUpdate"] == "agent_message_chunk" for u in replayed)

    await editor.new_session()  # opened (as an editor's chat panel does at start) but never written in
    listed = await editor.request("agent/listSessions", {"cwd": str(editor.project)})
    assert [s["sessionId"] for s in listed["sessions"]] == [session]


async def test_edit_selection_asks_a_plain_client_how(launch: Any) -> None:
    editor = await launch([text_line("Commented.")])
    path = editor.project / "m.py"
    path.write_text("x = 1\ny = 2\n")
    uri = editor.open(path)
    editor.action_answer = "Add comments"
    actions = await editor.raw_request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}},
            "context": {"diagnostics": [], "only": ["refactor"]},
        },
    )
    (action,) = actions  # `only: refactor` leaves just the rewrite
    assert action["kind"] == "refactor.rewrite" and action["command"]["command"] == "agent.editSelection"
    result = await editor.client.workspace_execute_command_async(
        types.ExecuteCommandParams(action["command"]["command"], action["command"]["arguments"])
    )
    assert result is None  # a plain client gets its answer at once; the turn runs on
    # A plain client has no agent/update view: the answer arrives as a message.
    await until(lambda: any(m.message == "Commented." for m in editor.client.messages))
    (question,) = editor.message_requests
    assert "Add comments" in [a["title"] for a in question["actions"]]


async def test_settings_problems_are_shown_and_secrets_never_echoed(launch: Any) -> None:
    secret = "AIza-not-a-real-key-123"
    editor = await launch([], init_options={"agentLsp": {"apiKey": secret, "approvalMode": "plan", "model": "m-x"}})
    result = await editor.request("agent/newSession", {"cwd": str(editor.project)})
    assert result["modes"]["currentModeId"] == "plan"
    assert result["models"]["currentModelId"] == "m-x"
    shown = " ".join(m.message for m in editor.client.messages)
    assert "apiKey" in shown and secret not in shown
    assert secret not in str(editor.updates) and secret not in str(result)


async def test_did_change_configuration_pushed_and_pulled(launch: Any) -> None:
    editor = await launch([])
    session = await editor.new_session()
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"agentLsp": {"model": "pushed-model"}})
    )
    assert (await editor.request("agent/newSession", {}))["models"]["currentModelId"] == "pushed-model"

    # settings: null means "ask me": the server pulls the agentLsp section with workspace/configuration
    editor.client.set_configuration({"model": "pulled-model", "approvalMode": "plan"}, section="agentLsp")
    editor.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    seen = None
    for _ in range(50):
        seen = await editor.request("agent/newSession", {})
        if seen["models"]["currentModelId"] == "pulled-model":
            break
    assert seen is not None and seen["models"]["currentModelId"] == "pulled-model"
    assert seen["modes"]["currentModeId"] == "plan"
    assert session != seen["sessionId"]


async def test_missing_credentials_are_shown_and_refuse_sessions(launch: Any) -> None:
    editor = await launch([], replay=False)  # a real model, and no key in the environment
    await until(lambda: any("GEMINI_API_KEY" in m.message for m in editor.client.messages))
    assert editor.client.messages[0].type == types.MessageType.Error
    try:
        await editor.request("agent/newSession", {})
    except Exception as exc:
        assert "GEMINI_API_KEY" in str(exc)
    else:
        raise AssertionError("a session was created without credentials")
