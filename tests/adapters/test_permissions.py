"""One permission question for both front ends (``session/request_permission`` over ACP, ``agent/requestPermission``
over LSP): every question's options are the vocabulary's choices in ACP's schema, and every answer maps back to the
outcome that choice stands for; an approval carrying an edited proposal is ``modify``."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent_lsp import events as ev
from agent_lsp.adapters.permissions import PermissionQuestion
from tests.acp_schema import validate

CALL = ev.ToolCallInfo("c1", "run_shell_command", {"command": "git status"}, "git status", "execute")
QUESTIONS = [
    ev.ConfirmationDetails(type="exec", title="Shell", command="git status", root_commands=("git",)),
    ev.ConfirmationDetails(
        type="edit", title="Edit a.py", path="/p/a.py", diff=ev.FileDiff("/p/a.py", "a\n", "b\n", "-a\n+b\n")
    ),
    ev.ConfirmationDetails(type="mcp", title="search (srv MCP Server)", server="srv", tool="search", args={}),
    ev.ConfirmationDetails(type="info", title="Fetch", prompt="read it", urls=("https://example.com",)),
]


@pytest.mark.parametrize("savable", [False, True])
@pytest.mark.parametrize("details", QUESTIONS, ids=lambda d: d.type)
def test_each_offered_option_is_valid_acp_and_answers_its_outcome(
    details: ev.ConfirmationDetails, savable: bool
) -> None:
    details = replace(details, savable=savable)
    question = PermissionQuestion("s1", CALL, details)
    offered = question.offered
    request = question.request()
    validate("RequestPermissionRequest", request)
    ids = [o["optionId"] for o in request["options"]]
    assert ids[0] == "proceed_once" and ids[-1] == "reject"
    assert ("proceed_always_server" in ids) == (details.type == "mcp")
    assert ("proceed_always_and_save" in ids) == savable
    for choice in offered:
        answer = {"outcome": {"outcome": "selected", "optionId": choice.option_id}}
        validate("RequestPermissionResponse", answer)
        assert question.outcome(answer) == choice.outcome
    assert question.outcome({"outcome": {"outcome": "selected", "optionId": "allow_once"}}) == "reject"
    assert question.outcome({"outcome": {"outcome": "cancelled"}}) == "cancel"
    assert question.outcome(None) == "cancel"


def test_an_approval_with_an_edited_proposal_is_modify_and_a_title_answers_a_plain_client() -> None:
    edit = QUESTIONS[1]
    question = PermissionQuestion("s1", CALL, edit)
    assert request_has_diff(question.request())
    approve = {"outcome": {"outcome": "selected", "optionId": "proceed_once"}, "_meta": {"modifiedContent": "c\n"}}
    assert question.result(approve).outcome == "modify" and question.result(approve).modified_content == "c\n"
    nested = {"outcome": {"outcome": "selected", "optionId": "proceed_once", "_meta": {"modifiedContent": "d\n"}}}
    assert question.result(nested).modified_content == "d\n"
    rejected = {"outcome": {"outcome": "selected", "optionId": "reject"}, "_meta": {"modifiedContent": "c\n"}}
    assert question.result(rejected).outcome == "reject"  # an edit sent with a no is not applied
    shell = PermissionQuestion("s1", CALL, QUESTIONS[0])
    assert shell.result(approve).outcome == "proceed_once"  # only edit proposals can be edited
    assert question.outcome_of_title("Allow all edits this session") == "proceed_always"
    assert question.outcome_of_title("Allow for this session") == "reject"  # never offered for an edit
    assert question.outcome_of_title(None) == "cancel"


def request_has_diff(request: dict[str, object]) -> bool:
    tool_call = request["toolCall"]
    assert isinstance(tool_call, dict)
    return bool(tool_call["content"][0]["type"] == "diff")
