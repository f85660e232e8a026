"""Tool confirmations as ``session/request_permission`` requests: the request carries the diff, its options are
the shared vocabulary's permission choices (Gemini CLI's option ids)."""

from __future__ import annotations

import logging
from typing import Any

from agent_lsp import events as ev
from agent_lsp.adapters.acp.jsonrpc import Connection, RpcError
from agent_lsp.adapters.acp.session_config import permission_options
from agent_lsp.adapters.updates import edited_proposal, permission_tool_call
from agent_lsp.core.ports import ConfirmationResult, Outcome
from agent_lsp.vocabulary import PermissionChoice, outcome_for, permission_choices

log = logging.getLogger(__name__)


def permission_request(
    session_id: str, call: ev.ToolCallInfo, details: ev.ConfirmationDetails, offered: list[PermissionChoice]
) -> dict[str, Any]:
    return {
        "sessionId": session_id,
        "toolCall": permission_tool_call(call, details),
        "options": permission_options(offered),
    }


def outcome_of(answer: Any, offered: list[PermissionChoice]) -> Outcome:
    """Map the client's answer. Reject (or an option we never offered) is a no the model hears; ``cancelled``
    is the user's Stop (clients answer it when the prompt is cancelled, CodeCompanion for its Cancel key)."""
    outcome = answer.get("outcome") if isinstance(answer, dict) else None
    if isinstance(outcome, dict) and outcome.get("outcome") == "selected":
        return outcome_for(outcome.get("optionId"), offered)
    return "cancel"


class AcpConfirmer:
    """A Confirmer that asks the editor. Cancelling the prompt cancels the wait (the request is dropped)."""

    def __init__(self, conn: Connection, session_id: str, *, subagents: bool = False) -> None:
        self.conn = conn
        self.session_id = session_id
        self.subagents = subagents  # the client shows subagents as child sessions: their questions go under them

    async def confirm(self, call: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> ConfirmationResult:
        offered = permission_choices(details)
        asked_in = call.origin.child_session_id if self.subagents and call.origin is not None else self.session_id
        try:
            answer = await self.conn.request(
                "session/request_permission", permission_request(asked_in, call, details, offered)
            )
        except RpcError as exc:
            log.warning("permission request for %s failed, treating it as a rejection: %s", call.name, exc.message)
            return ConfirmationResult("reject")
        except ConnectionError:
            return ConfirmationResult("cancel")
        outcome = outcome_of(answer, offered)
        edited = edited_proposal(answer, details)
        if outcome not in ("reject", "cancel") and edited is not None:
            return ConfirmationResult("modify", edited)
        return ConfirmationResult(outcome)
