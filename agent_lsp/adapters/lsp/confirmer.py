"""Asks the editor's user whether a tool call may run: agent/requestPermission, else showMessageRequest.

A client that advertised ``experimental.agent.permissionRequests`` gets ACP's RequestPermissionRequest
(the diff included). Any other client gets ``window/showMessageRequest`` with three plain actions, after
``window/showDocument`` opened the file concerned when it can; both offer the shared vocabulary's choices.
Reject tells the model; a dismissed question (or a cancelled permission request) stops the turn.
"""

from __future__ import annotations

import logging

from agent_lsp import events as ev
from agent_lsp.adapters.lsp import client as caps
from agent_lsp.adapters.lsp import permissions
from agent_lsp.adapters.lsp.client import ClientRequestError, LspClient
from agent_lsp.adapters.lsp.documents import path_to_uri
from agent_lsp.adapters.permissions import PermissionQuestion
from agent_lsp.core.ports import ConfirmationResult

log = logging.getLogger(__name__)


class LspConfirmer:
    def __init__(self, client: LspClient, session_id: str) -> None:
        self.client = client
        self.session_id = session_id

    async def confirm(self, call: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> ConfirmationResult:
        question = PermissionQuestion(self.session_id, call, details)
        if caps.wants_permission_requests(self.client.capabilities):
            try:
                answer = await self.client.request("agent/requestPermission", question.request())
            except ClientRequestError as exc:
                log.warning("agent/requestPermission failed, treating as a rejection: %s", exc)
                return ConfirmationResult("reject")
            return question.result(answer)
        await self._show_file(details)
        try:
            answer = await self.client.request("window/showMessageRequest", permissions.show_message_request(question))
        except ClientRequestError as exc:
            log.warning("window/showMessageRequest failed, treating as a rejection: %s", exc)
            return ConfirmationResult("reject")
        return ConfirmationResult(permissions.outcome_from_action(answer, question))

    async def _show_file(self, details: ev.ConfirmationDetails) -> None:
        path = details.diff.path if details.diff is not None else details.path
        if not path or (details.diff is not None and details.diff.old_text is None):
            return  # nothing to open yet for a file that does not exist
        if not caps.capability(self.client.capabilities, "window.showDocument.support"):
            return
        from pathlib import Path

        try:
            await self.client.request("window/showDocument", {"uri": path_to_uri(Path(path)), "takeFocus": True})
        except ClientRequestError as exc:
            log.info("could not show %s before asking: %s", path, exc)
