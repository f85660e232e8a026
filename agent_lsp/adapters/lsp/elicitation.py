"""MCP servers' forms over LSP: ``agent/elicit`` to a client that advertised
``experimental.agent.elicitation`` (the VS Code panel draws the form); for any other client a small form (a
yes/no, one choice) becomes ``window/showMessageRequest``, and any other is declined."""

from __future__ import annotations

import logging
from typing import Any

from agent_lsp.adapters.lsp.client import ClientRequestError, LspClient, capability
from agent_lsp.mcp.elicitation import FormAnswer, FormRequest, simple_choices

log = logging.getLogger(__name__)

ELICIT = "agent/elicit"
_DECLINE = "Decline"
_INFO = 3  # MessageType.Info


def shows_forms(caps: Any) -> bool:
    """The client advertised ``experimental.agent.elicitation``: it answers agent/elicit with a form."""
    return capability(caps, "experimental.agent.elicitation") is True


class LspElicitor:
    """Asks the editor for a server's form; cancelling the prompt cancels the wait (``$/cancelRequest``)."""

    def __init__(self, client: LspClient, session_id: str) -> None:
        self.client = client
        self.session_id = session_id

    async def elicit(self, request: FormRequest) -> FormAnswer:
        try:
            if shows_forms(self.client.capabilities):
                answer = await self.client.request(ELICIT, {"sessionId": self.session_id, **request.as_json()})
                return FormAnswer.from_json(answer)
            return await self._ask(request)
        except ClientRequestError as exc:
            log.warning("asking the editor for MCP server %r's form failed: %s", request.server, exc)
            return FormAnswer("decline")

    async def _ask(self, request: FormRequest) -> FormAnswer:
        choices = simple_choices(request)
        if choices is None:
            log.info("MCP server %r asked for a form; declined (this editor shows no forms)", request.server)
            return FormAnswer("decline")
        actions = [{"title": label} for label, _ in choices] + [{"title": _DECLINE}]
        picked = await self.client.request(
            "window/showMessageRequest", {"type": _INFO, "message": request.question, "actions": actions}
        )
        title = picked.get("title") if isinstance(picked, dict) else None
        if title is None:
            return FormAnswer("cancel")  # dismissed
        content = next((c for label, c in choices if label == title), None)
        return FormAnswer("accept", content) if content is not None else FormAnswer("decline")
