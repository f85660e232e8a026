"""The ACP agent: every method of Agent Client Protocol v1, mapped onto Runtime sessions and their event streams."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_lsp import events as ev
from agent_lsp.adapters.acp import handshake
from agent_lsp.adapters.acp.jsonrpc import (
    AUTH_REQUIRED,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    RESOURCE_NOT_FOUND,
    Connection,
    RequestContext,
    RpcError,
    optional_str,
    params_object,
    require_list,
    require_str,
)
from agent_lsp.adapters.updates import Update, UpdateState, to_updates

if TYPE_CHECKING:
    from agent_lsp.runtime import Runtime, SessionHandle, SessionSetup
    from agent_lsp.workspace.filesystem import FileSystem

log = logging.getLogger(__name__)
LIST_PAGE_SIZE = 50
ATTACH_WAIT_S = 5.0


@dataclass
class AgentOptions:
    """What the command line decided for every session of this process."""

    fake_responses: Path | None = None
    model: str | None = None
    approval_mode: str | None = None
    chunk_delay: float = 0.0
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))


@dataclass
class LiveSession:
    """An open session and what the adapter tracks about it."""

    id: str
    handle: SessionHandle
    fs: FileSystem
    state: UpdateState
    prompting: int = 0
    cancel_pending: bool = False
    closed: bool = False
    terminals: dict[str, str] = field(default_factory=dict)  # tool call id → terminal id
    held_notices: list[ev.Notice] = field(default_factory=list)  # shown when the next prompt starts
    sent_calls: dict[str, asyncio.Event] = field(default_factory=dict)
    models: list[tuple[str, str]] | None = None  # the model picker: what the endpoints offer


class AcpAgent:
    def __init__(self, options: AgentOptions) -> None:
        self.options = options
        self.env = options.env
        if self.env.get("GOOGLE_GEMINI_BASE_URL", "").strip() and not _has_key(self.env):
            # A custom endpoint (a proxy or a local fake) needs no credentials, but the client wants a key.
            self.env["GEMINI_API_KEY"] = "no-key-needed"
        self.client = handshake.ClientCapabilities()
        self.conn: Connection | None = None
        self.sessions: dict[str, LiveSession] = {}
        self._runtime_obj: Runtime | None = None
        self._cwds: list[Path] = []

    # ---- dispatch ----

    def dispatch(self, method: str, params: Any, ctx: RequestContext) -> Awaitable[Any]:
        """Runs synchronously as each request arrives (so bookkeeping happens in arrival order)."""
        handler = self._handlers().get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
        p = params_object(params)
        if method == "session/prompt":
            live = self._live(require_str(p, "sessionId"))
            live.prompting += 1
            return self._prompt(live, p, ctx)
        return handler(p, ctx)

    def methods(self) -> list[str]:
        """Every request method this agent answers (the fuzz test sends each one)."""
        return list(self._handlers())

    def _handlers(self) -> dict[str, Callable[[dict[str, Any], RequestContext], Awaitable[Any]]]:
        return {
            "initialize": self._initialize,
            "authenticate": self._authenticate,
            "session/new": self._new,
            "session/load": self._load,
            "session/resume": self._resume,
            "session/list": self._list,
            "session/close": self._close,
            "session/delete": self._delete,
            "session/prompt": self._never,  # dispatched above, with its session
            "session/set_mode": self._set_mode,
            "session/set_config_option": self._set_config_option,
        }

    def notification(self, method: str, params: Any) -> None:
        if method == "session/cancel":
            sid = params.get("sessionId") if isinstance(params, dict) else None
            live = self.sessions.get(sid) if isinstance(sid, str) else None
            if live is not None:
                self.cancel(live)
        else:
            log.debug("ignoring notification %s", method)

    async def _never(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        raise AssertionError("unreachable")

    @property
    def _c(self) -> Connection:
        assert self.conn is not None, "the agent has no connection"
        return self.conn

    # ---- initialize and authenticate ----

    def initialized(self, params: Any) -> dict[str, Any]:
        """Record the client's capabilities and answer ``initialize`` (also used by the fast start-up path)."""
        self.client = handshake.ClientCapabilities.from_initialize(params)
        replay = self.options.fake_responses is not None
        return handshake.initialize_result(auth_required=handshake.auth_required(self.env, replay=replay))

    async def _initialize(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        problem = handshake.check_initialize(params)
        if problem:
            raise RpcError.invalid_params("protocolVersion", problem.removeprefix("protocolVersion "))
        return self.initialized(params)

    async def _authenticate(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        method = require_str(params, "methodId")
        if not handshake.auth_required(self.env, replay=self.options.fake_responses is not None):
            return {}  # a replay model or a custom endpoint: whatever the client picked is fine
        env = handshake.credentials_env(method, _meta(params), self.env)
        if env is None:
            raise RpcError.invalid_params(
                "methodId", f"must be {handshake.API_KEY_METHOD} or {handshake.VERTEX_METHOD}"
            )
        from agent_lsp.errors import AuthError
        from agent_lsp.model.auth import resolve_auth

        try:
            config = resolve_auth(env)
        except AuthError as exc:
            raise RpcError(AUTH_REQUIRED, str(exc)) from exc
        # Kept in this process only: never written anywhere, never logged (AuthConfig hides the key).
        self.env.clear()
        self.env.update(env)
        self._runtime_obj = None
        log.info("authenticated: %s", config.describe())
        return {}

    def _runtime(self) -> Runtime:
        if self._runtime_obj is None:
            from agent_lsp.runtime import Runtime, RuntimeOptions

            self._runtime_obj = Runtime(
                RuntimeOptions(
                    fake_responses=self.options.fake_responses,
                    model=self.options.model,
                    approval_mode=self.options.approval_mode,  # type: ignore[arg-type]
                    checkpointing=True,
                    chunk_delay=self.options.chunk_delay,
                    env=self.env,
                )
            )
        return self._runtime_obj

    def _check_auth(self) -> Runtime:
        runtime = self._runtime()
        problem = runtime.check_auth()
        if problem:
            raise RpcError(AUTH_REQUIRED, f"Authentication required. {problem}")
        return runtime

    # ---- session lifecycle ----

    def _setup(self, params: dict[str, Any], session_id: str, *, mcp_required: bool) -> SessionSetup:
        from agent_lsp.adapters.acp.confirmer import AcpConfirmer
        from agent_lsp.adapters.acp.session_config import mcp_servers_from_acp
        from agent_lsp.runtime import SessionSetup

        cwd = _absolute_dir(require_str(params, "cwd"), "cwd")
        extra = [
            _absolute_dir(d, f"additionalDirectories[{i}]")
            for i, d in enumerate(require_list(params, "additionalDirectories", default_empty=True))
        ]
        servers = require_list(params, "mcpServers", default_empty=not mcp_required)
        setup = SessionSetup(
            cwd=cwd,
            confirmer=AcpConfirmer(self._c, session_id),
            extra_roots=extra,
            client_mcp_servers=mcp_servers_from_acp(servers),
            session_id=session_id,
        )
        if self.client.read_text_file or self.client.write_text_file:
            from agent_lsp.adapters.acp.client_fs import ClientFileSystem

            roots = [cwd.resolve(), *(e.resolve() for e in extra)]

            def current_roots() -> tuple[Path, ...] | list[Path]:
                live = self.sessions.get(session_id)
                return live.handle.workspace.roots if live is not None else roots

            setup.fs = ClientFileSystem(
                self._c,
                session_id,
                current_roots,
                read=self.client.read_text_file,
                write=self.client.write_text_file,
            )
        if cwd not in self._cwds:
            self._cwds.append(cwd)
        return setup

    def _open(self, session_id: str, handle: SessionHandle, setup: SessionSetup) -> LiveSession:
        from agent_lsp.workspace.filesystem import LocalFileSystem

        state = UpdateState(context_size=handle.session.context_window, notices_supported=self.client.notices)
        live = LiveSession(session_id, handle, setup.fs or LocalFileSystem(), state)
        self.sessions[session_id] = live
        handle.notice_sink = lambda notice: self._notice(live, notice)
        if self.client.terminal:
            self._install_terminal(live)
        return live

    def _install_terminal(self, live: LiveSession) -> None:
        from agent_lsp.adapters.acp.terminal_tool import TerminalShellTool
        from agent_lsp.tools.shell import SHELL_TOOL_NAME, ShellTool

        registry = live.handle.registry
        local = registry.get(SHELL_TOOL_NAME)
        if isinstance(local, ShellTool):

            async def attach(call_id: str, terminal_id: str) -> None:
                await self._attach_terminal(live, call_id, terminal_id)

            registry.replace(TerminalShellTool(local.ctx, self._c, live.id, attach))

    def _opened(self, live: LiveSession, ctx: RequestContext) -> dict[str, Any]:
        """The modes/configOptions answer; commands and pending notices follow right after it."""

        def announce() -> None:
            self._announce_commands(live)
            notices, live.handle.notices[:] = list(live.handle.notices), []
            for notice in notices:
                self._notice(live, notice)

        ctx.after_response.append(announce)
        if live.handle.lists_models:
            # The picker starts with the current model and fills in when the endpoint has listed its models,
            # so session/new never waits on the network.
            if live.models is None and live.handle.provider == "openai":
                live.models = [(live.handle.session.model, live.handle.session.model)]
            ctx.after_response.append(lambda: self._refresh_models(live))
        return self._session_state(live)

    def _refresh_models(self, live: LiveSession) -> None:
        async def refresh() -> None:
            models = await live.handle.model_choices()
            # The model list may have told the context window (vLLM, OpenRouter do).
            live.state = replace(live.state, context_size=live.handle.session.context_window)
            if models != live.models and not live.closed:
                live.models = models
                self._send_config(live)

        live.handle.background.append(asyncio.get_running_loop().create_task(refresh()))

    def _announce_commands(self, live: LiveSession) -> None:
        from agent_lsp.adapters.acp.session_config import available_commands

        commands = available_commands(live.handle.command_specs())
        self._send_update(live, {"sessionUpdate": "available_commands_update", "availableCommands": commands})

    def _session_state(self, live: LiveSession) -> dict[str, Any]:
        from agent_lsp.adapters.acp.session_config import config_options, mode_state

        session = live.handle.session
        return {
            "modes": mode_state(session.policy.mode),
            "configOptions": config_options(session.model, session.policy.mode, live.models),
        }

    async def _new(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        runtime = self._check_auth()
        from agent_lsp.store.sessions import new_session_id

        sid = new_session_id()
        setup = self._setup(params, sid, mcp_required=True)
        handle = await runtime.create_session(setup)
        live = self._open(sid, handle, setup)
        return {"sessionId": sid, **self._opened(live, ctx)}

    async def _load(self, params: dict[str, Any], ctx: RequestContext, *, replay: bool = True) -> Any:
        runtime = self._check_auth()
        from agent_lsp.store.sessions import SessionNotFoundError

        sid = require_str(params, "sessionId")
        setup = self._setup(params, sid, mcp_required=replay)
        old = self.sessions.get(sid)
        if old is not None:
            await self._shut(old)
        try:
            handle, events = await runtime.load_session(sid, setup)
        except (SessionNotFoundError, ValueError) as exc:
            raise RpcError(RESOURCE_NOT_FOUND, f"No saved session {sid!r} in {setup.cwd}") from exc
        live = self._open(sid, handle, setup)
        if replay:
            state = live.state
            for event in events:
                updates, state = to_updates(event, state, replay=True)
                for update in updates:
                    self._send_update(live, update)
                await self._c.drain()
        return self._opened(live, ctx)

    async def _resume(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        return await self._load(params, ctx, replay=False)

    async def _list(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        from agent_lsp.store.sessions import SessionStore

        raw = optional_str(params, "cwd")
        cwd = _absolute_dir(raw, "cwd") if raw else (self._cwds[-1] if self._cwds else Path.cwd())
        if cwd not in self._cwds:
            self._cwds.append(cwd)
        size = _meta(params).get("pageSize")
        limit = size if isinstance(size, int) and size > 0 else LIST_PAGE_SIZE
        try:
            page, cursor = await asyncio.to_thread(
                SessionStore(cwd.resolve()).list, optional_str(params, "cursor"), limit
            )
        except ValueError as exc:
            raise RpcError.invalid_params("cursor", "is not a cursor this agent gave out") from exc
        sessions = [{"sessionId": s.id, "cwd": s.cwd, "title": s.title, "updatedAt": s.updated} for s in page]
        return {"sessions": sessions, "nextCursor": cursor}

    async def _close(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        live = self._live(require_str(params, "sessionId"))
        await self._shut(live)
        return {}

    async def _delete(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        from agent_lsp.store.sessions import SessionStore

        sid = require_str(params, "sessionId")
        live = self.sessions.get(sid)
        if live is not None:
            await self._shut(live)
        for cwd in [*self._cwds, Path.cwd()]:
            if await asyncio.to_thread(SessionStore(cwd.resolve()).delete, sid):
                return {}
        raise RpcError(RESOURCE_NOT_FOUND, f"No saved session {sid!r}")

    async def _shut(self, live: LiveSession) -> None:
        self.cancel(live)
        live.closed = True
        self.sessions.pop(live.id, None)
        await live.handle.aclose()

    def _live(self, sid: str) -> LiveSession:
        live = self.sessions.get(sid)
        if live is None:
            raise RpcError(RESOURCE_NOT_FOUND, f"Unknown session {sid!r}: create it with session/new or load it first")
        return live

    async def close_all(self) -> None:
        for live in list(self.sessions.values()):
            try:
                await asyncio.wait_for(self._shut(live), 10)
            except Exception:
                log.exception("closing session %s failed", live.id)

    # ---- modes and config options ----

    async def _set_mode(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        live = self._live(require_str(params, "sessionId"))
        self._apply_mode(live, require_str(params, "modeId"), "modeId")
        return {}

    def _apply_mode(self, live: LiveSession, mode: str, where: str) -> None:
        from agent_lsp.adapters.acp.session_config import MODE_IDS, MODES

        if mode not in MODE_IDS:
            raise RpcError.invalid_params(where, f"must be one of {', '.join(MODE_IDS)}")
        refused = live.handle.session.policy.set_mode(mode)  # type: ignore[arg-type]
        if refused:
            name = next(n for i, n, _ in MODES if i == mode)
            raise RpcError(INVALID_REQUEST, f"Cannot switch to {name} mode: {refused}.", {"field": where})
        self._send_update(live, {"sessionUpdate": "current_mode_update", "currentModeId": mode})
        self._send_config(live)

    def _send_config(self, live: LiveSession) -> None:
        options = self._session_state(live)["configOptions"]
        self._send_update(live, {"sessionUpdate": "config_option_update", "configOptions": options})

    async def _set_config_option(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        from agent_lsp.adapters.acp.session_config import MODE_OPTION, MODEL_OPTION

        live = self._live(require_str(params, "sessionId"))
        option = require_str(params, "configId")
        value = params.get("value")
        if not isinstance(value, str) or not value.strip():
            raise RpcError.invalid_params("value", "must be a non-empty string (an option value)")
        if option == MODEL_OPTION:
            try:
                live.handle.set_model(value.strip())
            except ValueError as exc:
                raise RpcError.invalid_params("value", str(exc)) from exc
            live.state = replace(live.state, context_size=live.handle.session.context_window)
            live.models = await live.handle.model_choices()
            self._send_config(live)
        elif option == MODE_OPTION:
            self._apply_mode(live, value, "value")
        else:
            raise RpcError.invalid_params("configId", f"must be {MODEL_OPTION} or {MODE_OPTION}")
        return {"configOptions": self._session_state(live)["configOptions"]}

    # ---- prompts ----

    def cancel(self, live: LiveSession) -> None:
        """Cancel the running turn (or the one about to start); its prompt answers ``cancelled``."""
        session = live.handle.session
        if session.running:
            session.cancel()
        elif live.prompting:
            live.cancel_pending = True

    async def _prompt(self, live: LiveSession, params: dict[str, Any], ctx: RequestContext) -> Any:
        from agent_lsp.adapters.acp.prompt import prompt_from_blocks

        try:
            if live.prompting > 1 or live.handle.session.running:
                raise RpcError(INVALID_REQUEST, "A prompt is already running in this session; cancel it first")
            ctx.on_cancel = lambda: self.cancel(live)
            prompt, attachments = await prompt_from_blocks(require_list(params, "prompt"), live.fs.read_text)
            if live.cancel_pending:
                return {"stopReason": "cancelled"}
            stop: str = "end_turn"
            error: ev.Error | None = None
            if live.handle.refresh_commands():  # a .toml command was added, edited or removed
                self._announce_commands(live)
            self._send_held_notices(live)
            async for event in live.handle.session.send(prompt, attachments=attachments):
                if isinstance(event, ev.Error):
                    error = event
                elif isinstance(event, ev.Stop):
                    stop = event.reason
                self._send_event(live, event)
                await self._c.drain()
            if stop == "error":
                message = error.message if error is not None else "The turn failed."
                code = AUTH_REQUIRED if error is not None and error.status in (401, 403) else INTERNAL_ERROR
                raise RpcError(code, message)
            return {"stopReason": stop}
        finally:
            live.prompting -= 1
            if not live.prompting:
                live.cancel_pending = False

    # ---- updates ----

    def _notice(self, live: LiveSession, notice: ev.Notice) -> None:
        """A notice from outside any prompt (start-up, a late MCP failure). A client that advertised
        ``session.notices`` shows one at any time; the others (CodeCompanion, Zed) drop updates that arrive
        outside a prompt, so it waits for the start of the next prompt's stream."""
        if self.client.notices:
            self._send_event(live, notice)
        else:
            live.held_notices.append(notice)

    def _send_held_notices(self, live: LiveSession) -> None:
        notices, live.held_notices = live.held_notices, []
        for notice in notices:
            self._send_event(live, notice)

    def _send_event(self, live: LiveSession, event: ev.AgentEvent) -> None:
        updates, live.state = to_updates(event, live.state)
        if isinstance(event, ev.Content) and len(updates) == 1 and not live.closed and self.conn is not None:
            # The model's streamed text: consecutive chunks within a frame go out as one message.
            self._c.notify_text("session/update", {"sessionId": live.id, "update": updates[0]})
            return
        for update in updates:
            self._send_update(live, update)

    def _send_update(self, live: LiveSession, update: Update) -> None:
        if live.closed or self.conn is None:
            return
        call_id = update.get("toolCallId")
        if isinstance(call_id, str):
            terminal = live.terminals.get(call_id)
            if terminal is not None and update.get("sessionUpdate") == "tool_call_update" and "content" in update:
                shown = [{"type": "terminal", "terminalId": terminal}]
                if update.get("status") != "completed":
                    shown += [c for c in update["content"] if c.get("type") != "terminal"]
                update = {**update, "content": shown}
        self._c.notify("session/update", {"sessionId": live.id, "update": update})
        if update.get("sessionUpdate") == "tool_call" and isinstance(call_id, str):
            live.sent_calls.setdefault(call_id, asyncio.Event()).set()

    async def _attach_terminal(self, live: LiveSession, call_id: str, terminal_id: str) -> None:
        """Show the editor's terminal in the tool call, strictly after the tool call itself went out."""
        sent = live.sent_calls.setdefault(call_id, asyncio.Event())
        try:
            await asyncio.wait_for(sent.wait(), ATTACH_WAIT_S)
        except TimeoutError:
            log.warning("tool call %s was never announced; attaching its terminal anyway", call_id)
        live.terminals[call_id] = terminal_id
        self._send_update(
            live,
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": call_id,
                "status": "in_progress",
                "content": [{"type": "terminal", "terminalId": terminal_id}],
            },
        )


def _meta(params: dict[str, Any]) -> dict[str, Any]:
    meta = params.get("_meta")
    return meta if isinstance(meta, dict) else {}


def _has_key(env: Mapping[str, str]) -> bool:
    return any(env.get(k, "").strip() for k in ("GEMINI_API_KEY", "GOOGLE_API_KEY"))


def _absolute_dir(raw: Any, where: str) -> Path:
    if not isinstance(raw, str) or not raw:
        raise RpcError.invalid_params(where, "is required and must be an absolute path")
    path = Path(raw)
    if not path.is_absolute():
        raise RpcError.invalid_params(where, f"must be an absolute path (got {raw!r})")
    if not path.is_dir():
        raise RpcError.invalid_params(where, f"is not an existing folder: {raw}")
    return path
