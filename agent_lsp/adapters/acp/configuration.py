"""``session/set_mode`` and ``session/set_config_option``, and what a session tells the editor about its choices:
modes, config options (the model picker) and slash commands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_lsp.adapters.acp.jsonrpc import RequestContext, RpcError
from agent_lsp.adapters.acp.live import AcpSession, SessionTable
from agent_lsp.adapters.acp.params import Params, require_str
from agent_lsp.adapters.choices import MODE_OPTION, MODEL_OPTION, available_commands, config_options, mode_state
from agent_lsp.adapters.live import Refused
from agent_lsp.adapters.rewind import context_usage
from agent_lsp.model.inputs import table_capabilities
from agent_lsp.vocabulary import MODES, parse_mode

if TYPE_CHECKING:
    from agent_lsp.runtime import SessionHandle


class SessionConfiguration:
    def __init__(self, sessions: SessionTable) -> None:
        self.sessions = sessions

    # ---- what a session offers ----

    def offer(self, live: AcpSession) -> dict[str, Any]:
        """The ``modes``/``configOptions`` of a session/new, load or resume answer, from the opening's preview
        (a new session's tools and memory may still be loading). The model picker starts with the current model
        and fills in once the endpoint has listed its models, so opening a session never waits on the network."""
        preview = live.opening.preview
        if preview.lists_models and live.models is None and preview.provider == "openai":
            live.models = [(preview.model, preview.model)]
        # What this session's model takes (the documented table for now; session_info_update says more once the
        # settings and the endpoint are read): ACP has no per-session PromptCapabilities, so it travels in _meta.
        prompt = table_capabilities(preview.provider, preview.model)
        return {
            **_state(preview.mode, preview.model, live.models),
            "_meta": {"agent-lsp": {"promptCapabilities": prompt}},
        }

    def opened(self, live: AcpSession, handle: SessionHandle) -> None:
        """The session is built and its answer is out: its commands, then a model list from the endpoint."""
        self.announce_commands(live, handle)
        handle.spawn(self._inputs(live, handle), name=f"inputs:{live.id}")
        if handle.lists_models:
            handle.spawn(self._refresh_models(live, handle), name=f"refresh-models:{live.id}")

    def state(self, live: AcpSession, handle: SessionHandle) -> dict[str, Any]:
        session = handle.session
        return _state(session.policy.mode, session.model, live.models)

    def announce_commands(self, live: AcpSession, handle: SessionHandle) -> None:
        commands = available_commands(handle.command_specs())
        live.channel.send_update({"sessionUpdate": "available_commands_update", "availableCommands": commands})

    async def _refresh_models(self, live: AcpSession, handle: SessionHandle) -> None:
        update = await live.models_refreshed(handle)
        # The model list may have told the context window (vLLM, OpenRouter do).
        live.channel.set_context_size(handle.session.context_window)
        if update is not None:
            live.channel.send_update(update)

    async def send_inputs(self, live: AcpSession, handle: SessionHandle) -> dict[str, Any]:
        """What the session's current model takes (settings, then its provider, then the table), sent as a
        ``session_info_update`` whose ``_meta["agent-lsp"].promptCapabilities`` replaces what initialize said."""
        prompt = (await handle.model_inputs()).prompt_capabilities()
        if not live.channel.closed:
            meta = {"agent-lsp": {"promptCapabilities": prompt, "model": handle.session.model}}
            live.channel.send_update({"sessionUpdate": "session_info_update", "_meta": meta})
        return prompt

    async def _inputs(self, live: AcpSession, handle: SessionHandle) -> None:
        await self.send_inputs(live, handle)

    def config_changed(self, live: AcpSession, handle: SessionHandle) -> None:
        """The session's mode or model changed from inside a prompt: the editor's selects follow."""
        self._send_config(live, handle)

    def _send_config(self, live: AcpSession, handle: SessionHandle) -> None:
        options = self.state(live, handle)["configOptions"]
        live.channel.send_update({"sessionUpdate": "config_option_update", "configOptions": options})

    # ---- what the editor changes ----

    async def set_mode(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        live = self.sessions.require(require_str(params, "sessionId"))
        mode = require_str(params, "modeId")
        self._apply_mode(live, await opened(live), mode, "modeId")
        return {}

    async def set_config_option(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        live = self.sessions.require(require_str(params, "sessionId"))
        option = require_str(params, "configId")
        value: str = Params(params).require("value", str, "must be a non-empty string (an option value)")
        if not value.strip():
            raise RpcError.invalid_params("value", "must be a non-empty string (an option value)")
        if option not in (MODEL_OPTION, MODE_OPTION):
            raise RpcError.invalid_params("configId", f"must be {MODEL_OPTION} or {MODE_OPTION}")
        handle = await opened(live)
        if option == MODEL_OPTION:
            try:
                handle.set_model(value.strip())
            except ValueError as exc:
                raise RpcError.invalid_params("value", str(exc)) from exc
            live.channel.send_event(context_usage(handle.session))  # the new window, the same conversation
            await live.refresh_models(handle)
            self._send_config(live, handle)
            prompt = await self.send_inputs(live, handle)  # the new model's inputs, before the answer
            options = self.state(live, handle)["configOptions"]
            return {"configOptions": options, "_meta": {"agent-lsp": {"promptCapabilities": prompt}}}
        self._apply_mode(live, handle, value, "value")
        return {"configOptions": self.state(live, handle)["configOptions"]}

    def _apply_mode(self, live: AcpSession, handle: SessionHandle, value: str, where: str) -> None:
        try:
            mode = parse_mode(value, where)
        except ValueError as exc:
            raise RpcError.of("invalid_params", f"Invalid params: {exc}", {"field": where}) from exc
        refused = handle.session.policy.set_mode(mode)
        if refused:
            name = next(m.name for m in MODES if m.id == mode)
            raise RpcError.of("invalid_request", f"Cannot switch to {name} mode: {refused}.", {"field": where})
        live.channel.send_update({"sessionUpdate": "current_mode_update", "currentModeId": mode})
        self._send_config(live, handle)


async def opened(live: AcpSession) -> SessionHandle:
    """The session once built; -32603 saying why when building it failed (``LiveSession.opened``)."""
    try:
        return await live.opened()
    except Refused as exc:
        raise RpcError.of(exc.meaning, str(exc)) from exc


def _state(mode: str, model: str, models: list[tuple[str, str]] | None) -> dict[str, Any]:
    return {"modes": mode_state(mode), "configOptions": config_options(model, mode, models)}
