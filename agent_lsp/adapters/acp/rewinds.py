"""``_agent-lsp/rewind``: ACP's extension method for going back to an earlier user message (protocol-acp.md)."""

from __future__ import annotations

from typing import Any

from agent_lsp.adapters.acp.configuration import opened
from agent_lsp.adapters.acp.jsonrpc import RequestContext, RpcError
from agent_lsp.adapters.acp.live import SessionTable
from agent_lsp.adapters.acp.params import require_str
from agent_lsp.adapters.live import BUSY
from agent_lsp.adapters.rewind import BadRewindParams, rewind_answer, rewind_params

METHOD = "_agent-lsp/rewind"


class Rewinds:
    def __init__(self, sessions: SessionTable) -> None:
        self.sessions = sessions

    async def rewind(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        from agent_lsp.core.rewind import RewindError

        live = self.sessions.require(require_str(params, "sessionId"))
        try:
            checked = rewind_params(params)
        except BadRewindParams as exc:
            raise RpcError.invalid_params(exc.field, exc.why) from exc
        if not live.claim():  # the prompt gate: no prompt starts while files and history are put back
            raise RpcError.of("busy", BUSY)
        try:
            handle = await opened(live)
            return await rewind_answer(handle.session, checked, live.channel.send_event)
        except RewindError as exc:
            raise RpcError.of(exc.meaning, str(exc)) from exc
        finally:
            live.release()
