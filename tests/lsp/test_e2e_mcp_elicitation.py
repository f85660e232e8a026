"""MCP elicitation over LSP with the real server-everything: a client advertising
``experimental.agent.elicitation`` gets agent/elicit with the form's fields; any other client gets no form (a
twelve-field form is declined without a question)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.acp.harness import call_turn, text_turn
from tests.mcp.conftest import SERVER
from tests.mcp.test_elicitation import TOOL, everything_settings, result_text


async def test_lsp_client_with_the_form_capability_answers_agent_elicit(launch: Any, tmp_path: Path) -> None:
    editor = await _lsp_editor(launch, tmp_path, {"permissionRequests": True, "elicitation": True})
    editor.elicit_answer = {"action": "accept", "content": {"name": "Grace", "check": "false", "number": "2.5"}}
    session = await _lsp_prompt(editor)
    [asked] = editor.elicit_requests
    assert asked["sessionId"] == session and asked["server"] == "everything"
    fields = {f["name"]: f for f in asked["fields"]}
    assert fields["name"] == {
        "name": "name",
        "kind": "string",
        "title": "String",
        "required": True,
        "description": "Your full, legal name",
    }
    assert fields["untitledSingleSelectEnum"]["kind"] == "choice"
    assert fields["untitledSingleSelectEnum"]["options"][0] == {"value": "Monica", "label": "Monica"}
    assert fields["untitledMultipleSelectEnum"]["kind"] == "choices"
    text = _lsp_result(editor)
    assert "- Name: Grace" in text and "- Agreed to terms: false" in text and "- Favorite Number: 2.5" in text


async def test_lsp_client_without_forms_declines_a_big_form_without_asking(launch: Any, tmp_path: Path) -> None:
    editor = await _lsp_editor(launch, tmp_path, None)
    await _lsp_prompt(editor)
    assert editor.elicit_requests == []
    # The one showMessageRequest is the tool call's own question.
    assert len(editor.message_requests) == 1
    assert "User declined to provide the requested information" in _lsp_result(editor)


async def _lsp_editor(launch: Any, tmp_path: Path, agent: dict[str, Any] | None) -> Any:
    settings = tmp_path / "home" / ".gemini" / "settings.json"  # the launched server's HOME is tmp_path/home
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"mcpServers": {"everything": everything_settings()}}))
    script = [call_turn((TOOL, {})), text_turn("Done.")]
    return await launch(script, experimental={"agent": agent} if agent else None)


async def _lsp_prompt(editor: Any) -> str:
    session: str = (await editor.request("agent/newSession", {"cwd": str(editor.project)}))["sessionId"]
    answer = await editor.request("agent/prompt", {"sessionId": session, "prompt": "go"})
    assert answer == {"stopReason": "end_turn"}
    return session


def _lsp_result(editor: Any) -> str:
    return result_text([u["update"] for u in editor.updates])


async def test_lsp_client_without_forms_answers_a_yes_no_form_with_show_message_request(
    launch: Any, tmp_path: Path
) -> None:
    """The small real server (tests/mcp/servers/echo_server.py, the mcp SDK's ctx.elicit) asks one yes/no."""
    settings = tmp_path / "home" / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    echo = {"command": sys.executable, "args": [str(SERVER), "--name", "echo"]}
    settings.write_text(json.dumps({"mcpServers": {"echo": echo}}))
    editor = await launch([call_turn(("mcp_echo_confirm", {"question": "Deploy now?"})), text_turn("Ok.")])
    editor.action_answer = "No"
    session = (await editor.request("agent/newSession", {"cwd": str(editor.project), "approvalMode": "yolo"}))[
        "sessionId"
    ]
    assert await editor.request("agent/prompt", {"sessionId": session, "prompt": "go"}) == {"stopReason": "end_turn"}
    [asked] = editor.message_requests
    assert asked["message"] == "MCP server 'echo' asks: Deploy now? (Proceed)"
    assert [a["title"] for a in asked["actions"]] == ["Yes", "No", "Decline"]
    assert "accept: False" in result_text([u["update"] for u in editor.updates])
