"""MCP sampling: a server's ``sampling/createMessage`` answered by the session's own model, once the user has
approved that request through the editor (like a tool call, never silently; declined where nobody can ask)."""

from __future__ import annotations

import itertools
import logging
from typing import TYPE_CHECKING, Any

from agent_lsp import events as ev
from agent_lsp.model.base import Content, GenerateRequest, Part

if TYPE_CHECKING:
    from agent_lsp.core.ports import Confirmer
    from agent_lsp.core.session import Session

log = logging.getLogger(__name__)

_DECLINED = -1  # the MCP spec's code for a sampling request the user rejected
_SHOWN = 300  # characters of the request shown in the question
_ids = itertools.count(1)


class SessionSampler:
    """Answers sampling requests for one session's MCP servers."""

    def __init__(self, session: Session, confirmer: Confirmer, *, interactive: bool) -> None:
        self.session = session
        self.confirmer = confirmer
        self.interactive = interactive

    async def __call__(self, server: str, params: Any) -> Any:
        from mcp_types import CreateMessageResult, ErrorData, TextContent

        messages = [(str(m.role), _text(m.content)) for m in params.messages]
        if not self.interactive:
            return ErrorData(code=_DECLINED, message="Sampling needs the user's approval, and nobody can be asked")
        asked = "\n\n".join(text for _role, text in messages)
        shown = asked if len(asked) <= _SHOWN else asked[: _SHOWN - 1] + "…"
        title = f"MCP server '{server}' asks the model: {shown}"
        call = ev.ToolCallInfo(f"mcp-sampling-{next(_ids)}", f"mcp_{server}_sampling", {"prompt": asked}, title)
        details = ev.ConfirmationDetails(
            type="mcp", title=title, server=server, tool="sampling/createMessage", args={"prompt": asked}
        )
        answer = await self.confirmer.confirm(call, details)
        if answer.outcome not in ("proceed_once", "proceed_always", "proceed_always_server"):
            return ErrorData(code=_DECLINED, message="The user declined the sampling request")
        session = self.session
        request = GenerateRequest(
            model=session.model,
            contents=tuple(Content("model" if r == "assistant" else "user", (Part(text=t),)) for r, t in messages),
            system_instruction=params.system_prompt,
            temperature=params.temperature,
            include_thoughts=False,
        )
        try:
            reply = await session.client.generate(request)
        except Exception as exc:  # a model failure is the server's answer, not our crash
            log.warning("MCP sampling for %r failed", server, exc_info=True)
            return ErrorData(code=-32603, message=f"The model request failed: {exc}")
        stop = "maxTokens" if reply.finish_reason == "MAX_TOKENS" else "endTurn"
        return CreateMessageResult(
            role="assistant", content=TextContent(text=reply.text), model=session.model, stop_reason=stop
        )


def _text(content: Any) -> str:
    blocks = content if isinstance(content, list) else [content]
    out = []
    for block in blocks:
        if getattr(block, "type", None) == "text":
            out.append(str(block.text))
        else:
            out.append(f"[{getattr(block, 'type', 'content')} not sent to the model]")
    return "\n".join(out)
