"""``_agent-lsp/rewind``: ACP's extension method for going back to an earlier user message (protocol-acp.md)."""

from __future__ import annotations

from typing import Any

from agent_lsp.adapters.acp.configuration import opened
from agent_lsp.adapters.acp.jsonrpc import RequestContext, RpcError, require_str
from agent_lsp.adapters.acp.live import SessionTable
from agent_lsp.adapters.live import BUSY
from agent_lsp.adapters.rewind import rewind_answer

METHOD = "_agent-lsp/rewind"


class Rewinds:
    def __init__(self, sessions: SessionTable) -> None:
        self.sessions = sessions

    async def rewind(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        from agent_lsp.core.rewind import RewindError

        live = self.sessions.require(require_str(params, "sessionId"))
        index = params.get("messageIndex")
        if index is not None and (not isinstance(index, int) or isinstance(index, bool) or index < 0):
            raise RpcError.invalid_params("messageIndex", "must be a number from 0 (a user message's index)")
        flags = {key: params.get(key, False) for key in ("dryRun", "undo")}
        for key, value in flags.items():
            if not isinstance(value, bool):
                raise RpcError.invalid_params(key, "must be true or false")
        if not live.claim():  # the prompt gate: no prompt starts while files and history are put back
            raise RpcError.of("busy", BUSY)
        try:
            handle = await opened(live)
            return await rewind_answer(handle.session, index, dry_run=flags["dryRun"], undo=flags["undo"])
        except RewindError as exc:
            raise RpcError.of(exc.meaning, str(exc)) from exc
        finally:
            live.release()
