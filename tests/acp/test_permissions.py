"""The ``session/request_permission`` shape: every question's options are the vocabulary's choices in ACP's schema,
and every answer maps back to the outcome that choice stands for."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent_lsp import events as ev
from agent_lsp.adapters.acp.confirmer import outcome_of, permission_request
from agent_lsp.vocabulary import permission_choices
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
    offered = permission_choices(details)
    request = permission_request("s1", CALL, details, offered)
    validate("RequestPermissionRequest", request)
    ids = [o["optionId"] for o in request["options"]]
    assert ids[0] == "proceed_once" and ids[-1] == "reject"
    assert ("proceed_always_server" in ids) == (details.type == "mcp")
    assert ("proceed_always_and_save" in ids) == savable
    for choice in offered:
        answer = {"outcome": {"outcome": "selected", "optionId": choice.option_id}}
        validate("RequestPermissionResponse", answer)
        assert outcome_of(answer, offered) == choice.outcome
    assert outcome_of({"outcome": {"outcome": "selected", "optionId": "allow_once"}}, offered) == "reject"
    assert outcome_of({"outcome": {"outcome": "cancelled"}}, offered) == "cancel"
    assert outcome_of(None, offered) == "cancel"
