"""Tool confirmations as ``session/request_permission`` (the question and its answer: adapters/permissions.py)."""

from __future__ import annotations

import logging

from agent_lsp import events as ev
from agent_lsp.adapters.acp.jsonrpc import Connection, RpcError
from agent_lsp.adapters.permissions import PermissionQuestion
from agent_lsp.core.ports import ConfirmationResult

log = logging.getLogger(__name__)


class AcpConfirmer:
    """A Confirmer that asks the editor. Cancelling the prompt cancels the wait (the request is dropped)."""

    def __init__(self, conn: Connection, session_id: str, *, subagents: bool = False) -> None:
        self.conn = conn
        self.session_id = session_id
        self.subagents = subagents  # the client shows subagents as child sessions: their questions go under them

    async def confirm(self, call: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> ConfirmationResult:
        asked_in = call.origin.child_session_id if self.subagents and call.origin is not None else self.session_id
        question = PermissionQuestion(asked_in, call, details)
        try:
            answer = await self.conn.request("session/request_permission", question.request())
        except RpcError as exc:
            log.warning("permission request for %s failed, treating it as a rejection: %s", call.name, exc.message)
            return ConfirmationResult("reject")
        except ConnectionError:
            return ConfirmationResult("cancel")
        return question.result(answer)
