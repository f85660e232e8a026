"""What an LSP client sees around a permission question, over a real server subprocess: the question comes after
everything the agent produced before it, its title says what the call does, Reject lets the model answer in the
same turn while a dismissed question ends it, and start-up notices arrive as messages the client shows."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.acp_schema import validate
from tests.replay_lines import call_line, text_line

PERMISSIONS = {"agent": {"permissionRequests": True}}
REJECTED = 'Tool "run_shell_command" was canceled by the user.'


def _history(editor: Any) -> str:
    """The model's history as the server recorded it (what the model reads)."""
    files = sorted((editor.project.parent / "state").rglob("*.jsonl"))
    assert files, "the server recorded no session"
    lines = "\n".join(f.read_text(encoding="utf-8") for f in files).splitlines()
    return "\n".join(line for line in lines if line.startswith('{"type":"history"'))


def _snapshot_on_question(editor: Any) -> list[list[dict[str, Any]]]:
    """What the client had received each time it was asked."""
    seen: list[list[dict[str, Any]]] = []
    editor.before_answer = lambda: seen.append([u["update"] for u in editor.updates])
    return seen


@pytest.mark.parametrize("experimental", [PERMISSIONS, None], ids=["requestPermission", "showMessageRequest"])
async def test_the_question_comes_after_the_text_and_the_tool_call(launch: Any, experimental: Any) -> None:
    editor = await launch(
        [
            call_line("run_shell_command", {"command": "echo tests-ran"}, text="Now I'll run the tests."),
            text_line("All green."),
        ],
        experimental=experimental,
    )
    seen = _snapshot_on_question(editor)
    session = await editor.new_session()
    result = await editor.request("agent/prompt", {"sessionId": session, "prompt": "run the tests"})
    assert result["stopReason"] == "end_turn"
    (before,) = seen
    said = "".join(u["content"]["text"] for u in before if u["sessionUpdate"] == "agent_message_chunk")
    assert said == "Now I'll run the tests."
    (call,) = [u for u in before if u["sessionUpdate"] == "tool_call"]
    assert call["title"] == "echo tests-ran"
    if experimental:
        (asked,) = editor.permission_requests
        validate("RequestPermissionRequest", asked)
        assert asked["toolCall"]["toolCallId"] == call["toolCallId"]
        assert asked["toolCall"]["title"] == "echo tests-ran"
    else:
        (question,) = editor.message_requests
        assert question["message"] == "Allow the agent to run: echo tests-ran"


async def test_edit_titles_name_the_path_in_the_workspace(launch: Any) -> None:
    editor = await launch(
        [
            call_line("replace", {"file_path": "pkg/app.py", "old_string": "x = 1", "new_string": "x = 2"}),
            text_line("ok"),
        ],
        experimental=PERMISSIONS,
    )
    (editor.project / "pkg").mkdir()
    (editor.project / "pkg" / "app.py").write_text("x = 1\n")
    session = await editor.new_session()
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "x is 2"})
    (asked,) = editor.permission_requests
    assert asked["toolCall"]["title"].startswith("Edit pkg/app.py")
    assert str(editor.project) not in asked["toolCall"]["title"]


@pytest.mark.parametrize("answer", ["permission", "action"])
async def test_reject_tells_the_model_and_it_answers_in_the_same_turn(launch: Any, answer: str) -> None:
    editor = await launch(
        [call_line("run_shell_command", {"command": "rm -rf build"}), text_line("Fine, I kept the build folder.")],
        experimental=PERMISSIONS if answer == "permission" else None,
    )
    editor.permission_answer = "reject"
    editor.action_answer = "Reject"
    session = await editor.new_session()
    result = await editor.request("agent/prompt", {"sessionId": session, "prompt": "clean up"})
    assert result["stopReason"] == "end_turn"
    assert editor.messages() == "Fine, I kept the build folder."
    (failed,) = [u["update"] for u in editor.updates if u["update"].get("status") == "failed"]
    assert failed["content"][0]["content"]["text"] == REJECTED
    assert json.dumps({"error": REJECTED}, separators=(",", ":"))[1:-1] in _history(editor)


@pytest.mark.parametrize("answer", ["permission", "action"])
async def test_cancel_at_the_question_ends_the_turn(launch: Any, answer: str) -> None:
    editor = await launch(
        [call_line("run_shell_command", {"command": "rm -rf build"}), text_line("This must never be asked for.")],
        experimental=PERMISSIONS if answer == "permission" else None,
    )
    editor.permission_answer = None  # answers {"outcome": "cancelled"}
    editor.action_answer = None  # the question was dismissed
    session = await editor.new_session()
    result = await editor.request("agent/prompt", {"sessionId": session, "prompt": "clean up"})
    assert result["stopReason"] == "cancelled"
    assert editor.messages() == ""


async def test_startup_notices_arrive_as_messages(launch: Any) -> None:
    editor = await launch([text_line("Hello.")], extra_env={"AGENT_LSP_TRUST_WORKSPACE": "false"})
    session = await editor.new_session()
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "hi"})
    notices = [m for m in editor.client.messages if "not trusted" in m.message]
    assert len(notices) == 1 and notices[0].type.value == 2  # a warning the editor shows as it arrives
    assert editor.messages() == "Hello."  # never mixed into the agent's answer
    assert "not trusted" not in _history(editor)
