"""Tool confirmations as ``session/request_permission`` requests; the request itself carries the diff."""

from __future__ import annotations

import logging
from typing import Any

from agent_lsp import events as ev
from agent_lsp.adapters.acp.jsonrpc import Connection, RpcError
from agent_lsp.adapters.updates import edited_proposal, permission_tool_call
from agent_lsp.core.ports import ConfirmationResult, Outcome

log = logging.getLogger(__name__)

ALLOW_ONCE = "allow_once"
ALLOW_ALWAYS = "allow_always"
REJECT = "reject_once"
_OUTCOMES: dict[str, Outcome] = {ALLOW_ONCE: "proceed_once", ALLOW_ALWAYS: "proceed_always", REJECT: "reject"}


def permission_options(details: ev.ConfirmationDetails) -> list[dict[str, Any]]:
    """Allow once / allow for this session / reject; the "always" label says what it will cover."""
    if details.type == "exec" and details.root_commands:
        always = "Always allow " + ", ".join(f"`{c}`" for c in details.root_commands) + " this session"
    elif details.type == "mcp" and details.tool:
        always = f"Always allow `{details.tool}` this session"
    else:
        always = "Allow for this session"
    return [
        {"optionId": ALLOW_ONCE, "name": "Allow once", "kind": "allow_once"},
        {"optionId": ALLOW_ALWAYS, "name": always, "kind": "allow_always"},
        {"optionId": REJECT, "name": "Reject", "kind": "reject_once"},
    ]


def permission_request(session_id: str, call: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> dict[str, Any]:
    return {
        "sessionId": session_id,
        "toolCall": permission_tool_call(call, details),
        "options": permission_options(details),
    }


def outcome_of(answer: Any) -> Outcome:
    """Map the client's answer. Reject (or an option we never offered) is a no the model hears; ``cancelled``
    is the user's Stop (clients answer it when the prompt is cancelled, CodeCompanion for its Cancel key)."""
    outcome = answer.get("outcome") if isinstance(answer, dict) else None
    if isinstance(outcome, dict) and outcome.get("outcome") == "selected":
        return _OUTCOMES.get(str(outcome.get("optionId")), "reject")
    return "cancel"


class AcpConfirmer:
    """A Confirmer that asks the editor. Cancelling the prompt cancels the wait (the request is dropped)."""

    def __init__(self, conn: Connection, session_id: str) -> None:
        self.conn = conn
        self.session_id = session_id

    async def confirm(self, call: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> ConfirmationResult:
        try:
            answer = await self.conn.request(
                "session/request_permission", permission_request(self.session_id, call, details)
            )
        except RpcError as exc:
            log.warning("permission request for %s failed, treating it as a rejection: %s", call.name, exc.message)
            return ConfirmationResult("reject")
        except ConnectionError:
            return ConfirmationResult("cancel")
        outcome = outcome_of(answer)
        edited = edited_proposal(answer, details)
        if outcome not in ("reject", "cancel") and edited is not None:
            return ConfirmationResult("modify", edited)
        return ConfirmationResult(outcome)
