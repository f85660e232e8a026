"""Prompt runs over ACP: ``session/prompt`` streams a turn's events as updates; ``session/cancel`` stops it."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from agent_lsp import events as ev
from agent_lsp.adapters.acp.configuration import SessionConfiguration, opened
from agent_lsp.adapters.acp.jsonrpc import RequestContext, RpcError, require_list, require_str
from agent_lsp.adapters.acp.live import AcpSession, SessionTable
from agent_lsp.adapters.live import BUSY
from agent_lsp.model.catalog import images_refused


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
        from agent_lsp.adapters.acp.prompt import prompt_from_blocks

        if not claimed:
            raise RpcError.of("busy", BUSY)
        try:
            ctx.on_cancel = live.cancel
            handle = await opened(live)  # a prompt sent right behind session/new waits for the session's tools
            prompt, attachments = await prompt_from_blocks(require_list(params, "prompt"), live.fs.read_text)
            parts = [*([] if isinstance(prompt, str) else prompt), *attachments]
            refused = images_refused(parts, handle.provider, handle.session.model)
            if refused:  # said before anything reaches the model
                raise RpcError.of("invalid_params", refused)
            if live.cancel_pending:
                return {"stopReason": "cancelled"}
            if handle.refresh_commands():  # a .toml command was added, edited or removed
                self.configuration.announce_commands(live, handle)
            live.channel.send_held()
            stop: str = "end_turn"
            error: ev.Error | None = None
            async for event in handle.session.send(prompt, attachments=attachments):
                if isinstance(event, ev.Error):
                    error = event
                elif isinstance(event, ev.Stop):
                    stop = event.reason
                live.channel.send_event(event)
                if isinstance(event, ev.ModeChanged):  # the model switched modes: the mode select follows
                    self.configuration.config_changed(live, handle)
                await live.channel.conn.drain()
            if stop == "error":
                if error is None:
                    raise RpcError.of("internal", "The turn failed.")
                raise RpcError.of(error.meaning, error.message)
            return {"stopReason": stop}
        finally:
            live.release()
