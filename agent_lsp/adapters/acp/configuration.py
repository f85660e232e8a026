"""``session/set_mode`` and ``session/set_config_option``, and what a session tells the editor about its choices:
modes, config options (the model picker) and slash commands."""

from __future__ import annotations

import asyncio
from typing import Any

from agent_lsp.adapters.acp.jsonrpc import RequestContext, RpcError, require_str
from agent_lsp.adapters.acp.live import LiveSession, SessionTable
from agent_lsp.adapters.acp.session_config import (
    MODE_OPTION,
    MODEL_OPTION,
    available_commands,
    config_options,
    mode_state,
)
from agent_lsp.vocabulary import MODES, parse_mode


class SessionConfiguration:
    def __init__(self, sessions: SessionTable) -> None:
        self.sessions = sessions

    # ---- what a session offers ----

    def offer(self, live: LiveSession, ctx: RequestContext) -> dict[str, Any]:
        """The ``modes``/``configOptions`` of a session/new, load or resume answer. The model picker starts with
        the current model and fills in once the endpoint has listed its models (right after the answer), so
        opening a session never waits on the network."""
        handle = live.handle
        if handle.lists_models:
            if live.models is None and handle.provider == "openai":
                live.models = [(handle.session.model, handle.session.model)]
            ctx.after_response.append(lambda: self._refresh_models(live))
        return self.state(live)

    def state(self, live: LiveSession) -> dict[str, Any]:
        session = live.handle.session
        return {
            "modes": mode_state(session.policy.mode),
            "configOptions": config_options(session.model, session.policy.mode, live.models),
        }

    def announce_commands(self, live: LiveSession) -> None:
        commands = available_commands(live.handle.command_specs())
        live.channel.send_update({"sessionUpdate": "available_commands_update", "availableCommands": commands})

    def _refresh_models(self, live: LiveSession) -> None:
        async def refresh() -> None:
            models = await live.handle.model_choices()
            # The model list may have told the context window (vLLM, OpenRouter do).
            live.channel.set_context_size(live.handle.session.context_window)
            if models != live.models and not live.channel.closed:
                live.models = models
                self._send_config(live)

        live.handle.background.append(asyncio.get_running_loop().create_task(refresh()))

    def _send_config(self, live: LiveSession) -> None:
        options = self.state(live)["configOptions"]
        live.channel.send_update({"sessionUpdate": "config_option_update", "configOptions": options})

    # ---- what the editor changes ----

    async def set_mode(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        live = self.sessions.require(require_str(params, "sessionId"))
        self._apply_mode(live, require_str(params, "modeId"), "modeId")
        return {}

    async def set_config_option(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        live = self.sessions.require(require_str(params, "sessionId"))
        option = require_str(params, "configId")
        value = params.get("value")
        if not isinstance(value, str) or not value.strip():
            raise RpcError.invalid_params("value", "must be a non-empty string (an option value)")
        if option == MODEL_OPTION:
            try:
                live.handle.set_model(value.strip())
            except ValueError as exc:
                raise RpcError.invalid_params("value", str(exc)) from exc
            live.channel.set_context_size(live.handle.session.context_window)
            live.models = await live.handle.model_choices()
            self._send_config(live)
        elif option == MODE_OPTION:
            self._apply_mode(live, value, "value")
        else:
            raise RpcError.invalid_params("configId", f"must be {MODEL_OPTION} or {MODE_OPTION}")
        return {"configOptions": self.state(live)["configOptions"]}

    def _apply_mode(self, live: LiveSession, value: str, where: str) -> None:
        try:
            mode = parse_mode(value, where)
        except ValueError as exc:
            raise RpcError.of("invalid_params", f"Invalid params: {exc}", {"field": where}) from exc
        refused = live.handle.session.policy.set_mode(mode)
        if refused:
            name = next(m.name for m in MODES if m.id == mode)
            raise RpcError.of("invalid_request", f"Cannot switch to {name} mode: {refused}.", {"field": where})
        live.channel.send_update({"sessionUpdate": "current_mode_update", "currentModeId": mode})
        self._send_config(live)
