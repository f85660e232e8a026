"""Prompt runs over ACP: ``session/prompt`` streams a turn's events as updates; ``session/cancel`` stops it."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from agent_lsp import events as ev
from agent_lsp.adapters.acp.configuration import SessionConfiguration
from agent_lsp.adapters.acp.jsonrpc import RequestContext, RpcError
from agent_lsp.adapters.acp.live import AcpSession, SessionTable
from agent_lsp.adapters.acp.params import require_list, require_str
from agent_lsp.adapters.content import BlockError, read_blocks
from agent_lsp.adapters.live import BUSY, Refused

if TYPE_CHECKING:
    from agent_lsp.runtime import SessionHandle


class PromptRuns:
    def __init__(self, sessions: SessionTable, configuration: SessionConfiguration) -> None:
        self.sessions = sessions
        self.configuration = configuration

    def prompt(self, params: dict[str, Any], ctx: RequestContext) -> Awaitable[Any]:
        """The session is claimed as the request arrives (not when its task first runs), so a second prompt sent
        right behind the first is refused, and a cancel that arrives before the turn began still stops it."""
        live = self.sessions.require(require_str(params, "sessionId"))
        return self._run(live, live.claim(), params, ctx)

    def cancel(self, params: Any) -> None:
        """The ``session/cancel`` notification (an unknown session is nothing to cancel)."""
        sid = params.get("sessionId") if isinstance(params, dict) else None
        live = self.sessions.get(sid) if isinstance(sid, str) else None
        if live is not None:
            live.cancel()

    async def _run(self, live: AcpSession, claimed: bool, params: dict[str, Any], ctx: RequestContext) -> Any:
        if not claimed:
            raise RpcError.of("busy", BUSY)
        ctx.on_cancel = live.cancel
        channel = live.channel

        async def deliver(event: ev.AgentEvent) -> None:
            channel.send_event(event)
            handle = live.ready
            if isinstance(event, ev.ModeChanged) and handle is not None:  # the model switched modes: the select follows
                self.configuration.config_changed(live, handle)
            await channel.drain()

        async def prepare(handle: SessionHandle) -> None:
            channel.send_held()

        try:
            end = await live.run_prompt(
                lambda: read_blocks(require_list(params, "prompt"), live.fs.read_text),
                deliver,
                prepare=prepare,
                commands_changed=lambda handle: self.configuration.announce_commands(live, handle),
            )
        except Refused as exc:
            raise RpcError.of(exc.meaning, str(exc)) from exc
        except BlockError as exc:
            raise RpcError.invalid_params(exc.where, exc.why) from exc
        if end.stop == "error":
            if end.error is None:
                raise RpcError.of("internal", "The turn failed.")
            raise RpcError.of(end.error.meaning, end.error.message)
        return {"stopReason": end.stop}
