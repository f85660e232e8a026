"""Sessions over LSP: agent/newSession, loadSession, listSessions, setMode, setModel, and the settings they follow.

Each session's id is made before the session, so its Confirmer and notice sink are given at construction.
``agent/newSession`` is answered from the runtime's preview (mode, model, provider); the session's tools, memory
and custom commands are built behind the answer, and what needs them awaits ``LspSession.handle()``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_lsp.adapters.choices import available_commands
from agent_lsp.adapters.live import LiveSession, Refused, replay, send_event
from agent_lsp.adapters.lsp.client import LspClient, capability
from agent_lsp.adapters.lsp.client_fs import LspFileSystem
from agent_lsp.adapters.lsp.configuration import Configuration
from agent_lsp.adapters.lsp.confirmer import LspConfirmer
from agent_lsp.adapters.lsp.elicitation import LspElicitor
from agent_lsp.adapters.lsp.messages import notice_message, show_message
from agent_lsp.adapters.lsp.params import RequestError, opt_int, opt_str, session_id
from agent_lsp.adapters.lsp.sign_in import open_sign_in_page
from agent_lsp.adapters.rewind import context_usage
from agent_lsp.adapters.updates import Update, UpdateState
from agent_lsp.model.catalog import CHOICE_IDS
from agent_lsp.model.inputs import table_capabilities
from agent_lsp.vocabulary import MODES, ApprovalMode, parse_mode, stricter_or_same

if TYPE_CHECKING:
    from agent_lsp import events as ev
    from agent_lsp.core.code_intel import CodeIntel
    from agent_lsp.runtime import Runtime, SessionHandle, SessionOpening, SessionSetup


@dataclass(kw_only=True)
class LspSession(LiveSession):
    """An open session over LSP: the shared live session (opening, model picker, prompt gate) plus what its
    updates are drawn from and the running prompt's request id and progress token (what cancels it)."""

    # Compactions are always sent over LSP (contract 2); subagent nesting to clients that say they draw it.
    state: UpdateState = field(default_factory=lambda: UpdateState(compaction_supported=True))
    request_id: Any = None
    token: Any = None

    async def handle(self) -> SessionHandle:
        """The built session; -32603 saying why when it could not be built (a broken disk, not a setting)."""
        try:
            return await self.opened()
        except Refused as exc:
            raise RequestError(exc.meaning, str(exc)) from exc


@dataclass(frozen=True)
class LspWire:
    """One session's updates as ``agent/update`` notifications (``replay`` marks a loaded session's history).
    Writes go out synchronously, so draining is one turn of the loop: other requests run between replayed events."""

    client: LspClient
    session_id: str
    replay: bool = False

    def update(self, update: Update) -> None:
        self.client.notify("agent/update", self._params(update))

    def text(self, update: Update) -> None:
        self.client.notify_text("agent/update", self._params(update))

    async def drain(self) -> None:
        await asyncio.sleep(0)

    def _params(self, update: Update) -> dict[str, Any]:
        params = {"sessionId": self.session_id, "update": update}
        return {**params, "replay": True} if self.replay else params


class Sessions:
    """The open sessions of one server, and the one the editor used last (``current``)."""

    def __init__(self, client: LspClient, config: Configuration, fs: LspFileSystem) -> None:
        self.client = client
        self.config = config
        self.fs = fs
        self.open: dict[str, LspSession] = {}
        self.current: str | None = None
        self._lock = asyncio.Lock()

    def live(self, params: Mapping[str, Any]) -> LspSession:
        sid = session_id(params)
        live = self.open.get(sid)
        if live is None:
            raise RequestError("not_found", f"unknown sessionId {sid!r}; create one with agent/newSession")
        return live

    async def new_session(self, params: Mapping[str, Any]) -> dict[str, Any]:
        runtime = self.config.runtime()
        setup = self._setup(params, runtime.new_session_id())
        with _credentials(self.client):
            opening = await runtime.open_session(setup)
        return self._answer(self._open(opening))

    async def load_session(self, params: Mapping[str, Any]) -> dict[str, Any]:
        sid = session_id(params)
        setup = self._setup(params, sid)  # bad params must not cost the open session
        old = self.open.pop(sid, None)
        if old is not None:
            await _close(old)
        from agent_lsp.runtime import SessionOpening
        from agent_lsp.store.sessions import SessionNotFoundError

        try:
            with _credentials(self.client):
                handle, events = await self.config.runtime().load_session(sid, setup)
        except SessionNotFoundError as exc:
            raise RequestError("not_found", f"no saved session {sid} for {setup.cwd}") from exc
        live = self._open(SessionOpening.done(handle))
        await replay(events, live.state, LspWire(self.client, sid, replay=True))
        return self._answer(live)

    async def current_session(self) -> str:
        """The session code actions and ``agent.prompt`` go to; made on first use."""
        async with self._lock:
            if self.current is None or self.current not in self.open:
                await self.new_session({})
            assert self.current is not None
            return self.current

    def _setup(self, params: Mapping[str, Any], sid: str) -> SessionSetup:
        from agent_lsp.runtime import SessionSetup

        cwd = Path(raw_cwd) if (raw_cwd := opt_str(params, "cwd")) else self.config.default_cwd()
        mode: ApprovalMode | None = self.config.config.approval_mode
        if params.get("approvalMode") not in (None, ""):
            try:
                mode = parse_mode(params["approvalMode"])
            except ValueError as exc:
                raise RequestError("invalid_params", str(exc)) from exc
        settings = self.config.config
        return SessionSetup(
            cwd=cwd,
            confirmer=LspConfirmer(self.client, sid),
            fs=self.fs,
            extra_roots=[r for r in self.config.roots if r != cwd],
            approval_mode=mode,
            model=opt_str(params, "model") or settings.model,
            client_mcp_servers=settings.mcp_servers,
            overrides=dict(settings.overrides) or None,
            editor_trust=settings.trust,
            session_id=sid,
            checkpointing=settings.checkpointing,
            notice_sink=lambda n: self.client.notify("window/showMessage", notice_message(n)),
            commands_changed=lambda: self._announce_commands(sid),
            open_url=lambda url: open_sign_in_page(self.client, url),
            **_editor_parts(self.client, sid),
        )

    def _open(self, opening: SessionOpening) -> LspSession:
        live = LspSession(opening=opening, state=_update_state(self.client))
        self.open[live.id] = live
        self.current = live.id
        return live

    def _answer(self, live: LspSession) -> dict[str, Any]:
        """What the session offers now: its mode, Gemini's usual models or an endpoint's current one, and the
        built-in commands. Behind the answer: the start-up notices, the custom commands once the session is
        built (``available_commands_update``), and an endpoint's own models (``config_option_update``, as over
        ACP; loading its SDK and asking it over the network): opening a session waits for neither."""
        preview = live.opening.preview
        if preview.lists_models:
            live.models = [(preview.model, preview.model)]

        built = live.ready is not None  # a loaded session: the answer already lists its custom commands

        # Set going by this request: written behind its answer (ordering.py).
        self.config.tasks.spawn(self._opened(live, announce_commands=not built), name=f"opened:{live.id}")
        return self.describe(live)

    async def _opened(self, live: LspSession, *, announce_commands: bool) -> None:
        try:
            handle = await live.handle()
        except RequestError as exc:
            self.client.notify("window/showMessage", show_message("error", f"Agent: {exc}"))
            return
        for notice in handle.take_notices():  # said while the session was being made
            self.client.notify("window/showMessage", notice_message(notice))
        if live.id not in self.open:
            return
        commands = self.commands(live)
        if announce_commands and commands != available_commands():
            update = {"sessionUpdate": "available_commands_update", "availableCommands": commands}
            self.client.notify("agent/update", {"sessionId": live.id, "update": update})
        if handle.lists_models:
            handle.spawn(self._refresh_models(live, handle), name=f"refresh-models:{live.id}")

    async def _refresh_models(self, live: LspSession, handle: SessionHandle) -> None:
        update = await live.models_refreshed(handle)
        if update is not None and live.id in self.open:
            self.client.notify("agent/update", {"sessionId": live.id, "update": update})

    def describe(self, live: LspSession) -> dict[str, Any]:
        """The session as an answer: the built session's state, else its preview (just opened)."""
        handle = live.ready
        preview = live.opening.preview
        model = handle.session.model if handle is not None else preview.model
        mode = handle.session.policy.mode if handle is not None else preview.mode
        models = live.models if live.models is not None else [(m, m) for m in CHOICE_IDS]
        if model not in (m for m, _ in models):
            models = [(model, model), *models]
        return {
            "sessionId": live.id,
            "modes": {
                "currentModeId": mode,
                "availableModes": [{"id": m.id, "name": m.name, "description": m.description} for m in MODES],
            },
            "models": {
                "currentModelId": model,
                "availableModels": [{"modelId": m, "name": n} for m, n in models],
            },
            "provider": handle.provider_summary() if handle is not None else preview.provider_summary,
            "commands": self.commands(live),
            "promptCapabilities": table_capabilities(handle.provider if handle else preview.provider, model),
        }

    def announce(self, live: LspSession, event: ev.AgentEvent) -> None:
        """An event from outside a prompt (a rewind's, a fork's, a model switch's usage), as ``agent/update``."""
        live.state = send_event(event, live.state, LspWire(self.client, live.id))

    def _announce_commands(self, sid: str) -> None:
        """The session's commands changed on their own (an MCP server's prompts arrived): the menu again."""
        live = self.open.get(sid)
        if live is not None and live.ready is not None:
            update = {"sessionUpdate": "available_commands_update", "availableCommands": self.commands(live)}
            self.client.notify("agent/update", {"sessionId": sid, "update": update})

    def commands(self, live: LspSession) -> list[dict[str, Any]]:
        """The session's slash commands, custom ones included; the built-in ones while it is being built."""
        handle = live.ready
        return available_commands(handle.command_specs() if handle is not None else None)

    async def list_sessions(self, params: Mapping[str, Any]) -> dict[str, Any]:
        raw_cwd = opt_str(params, "cwd")
        cwd = Path(raw_cwd) if raw_cwd else self.config.default_cwd()
        return await _list_sessions(self.config.runtime(), cwd, params)

    async def set_mode(self, params: Mapping[str, Any]) -> dict[str, Any]:
        live = self.live(params)
        try:
            mode = parse_mode(params.get("modeId"), "modeId")
        except ValueError as exc:
            raise RequestError("invalid_params", str(exc)) from exc
        refused = (await live.handle()).session.policy.set_mode(mode)
        if refused:
            raise RequestError("invalid_request", refused)
        update = {"sessionUpdate": "current_mode_update", "currentModeId": mode}
        self.client.notify("agent/update", {"sessionId": live.id, "update": update})
        return {}

    async def set_model(self, params: Mapping[str, Any]) -> dict[str, Any]:
        live = self.live(params)
        model = params.get("modelId")
        if not isinstance(model, str) or not model:
            raise RequestError("invalid_params", "modelId must be a model name")
        handle = await live.handle()
        try:
            handle.set_model(model)
        except ValueError as exc:
            raise RequestError("invalid_params", f"modelId: {exc}") from exc
        usage = context_usage(handle.session)  # the new window, the same conversation
        await live.refresh_models(handle)
        inputs = (await handle.model_inputs()).prompt_capabilities()  # settings, provider, then table
        # Spawned last, so it runs once the handler has returned: the answer goes out first (ordering.py).
        handle.spawn(_announced(self, live, usage), name=f"usage:{live.id}")
        return {"models": self.describe(live)["models"], "promptCapabilities": inputs}

    def follow_settings(self) -> None:
        """The editor's model and approval mode, changed in its settings, apply to the running sessions too."""
        settings = self.config.config

        def follow(handle: SessionHandle) -> None:
            session = handle.session
            if settings.model and settings.model != session.model:
                # The same switch as the picker's (a provider:name value changes provider too).
                try:
                    handle.set_model(settings.model)
                except ValueError as exc:
                    message = f"Model {settings.model} not used: {exc}"
                    self.client.notify("window/showMessage", show_message("warning", message))
            mode = settings.approval_mode  # only toward stricter: a channel a project can fill never loosens it
            if mode and stricter_or_same(mode, session.policy.mode) and (refused := session.policy.set_mode(mode)):
                self.client.notify("window/showMessage", show_message("warning", f"Mode {mode} refused: {refused}"))

        self._each(follow)

    def follow_folders(self, added: list[Path], removed: list[Path]) -> None:
        """The editor's folders are the workspace roots of the running sessions too."""

        def follow(handle: SessionHandle) -> None:
            workspace = handle.workspace
            for path in removed:
                workspace.remove_root(path)
            for path in added:
                if path.is_dir():
                    workspace.add_root(path)
            handle.roots_changed()

        self._each(follow)

    def _each(self, change: Callable[[SessionHandle], None]) -> None:
        """Apply ``change`` to every open session: now if it is built, else as soon as it is (in order)."""
        for live in self.open.values():
            handle = live.ready
            if handle is not None:
                change(handle)
            else:
                self.config.tasks.spawn(_when_built(live, change), name=f"when-built:{live.id}")

    async def close_all(self) -> None:
        for live in list(self.open.values()):
            await _close(live)
        self.open.clear()


async def _when_built(live: LspSession, change: Callable[[SessionHandle], None]) -> None:
    with contextlib.suppress(RequestError):  # never built: nothing to change (its opening said why)
        change(await live.handle())


async def _close(live: LspSession) -> None:
    """Close a session, once it is whole if it is still being built."""
    try:
        handle = await live.handle()
    except RequestError:
        return  # never built: nothing of it is left open
    await handle.aclose()


async def _list_sessions(runtime: Runtime, cwd: Path, params: Mapping[str, Any]) -> dict[str, Any]:
    """``agent/listSessions``: a page of the folder's sessions (``Runtime.list_sessions`` says which)."""
    cursor_in, limit = opt_str(params, "cursor"), opt_int(params, "limit", 50)
    try:
        infos, cursor = await runtime.list_sessions(cwd, cursor_in, limit)
    except ValueError as exc:
        raise RequestError("invalid_params", f"bad cursor: {exc}") from exc
    sessions = [
        {"sessionId": i.id, "title": i.title, "cwd": i.cwd, "createdAt": i.created, "updatedAt": i.updated}
        | {"promptCount": i.prompt_count}
        for i in infos
    ]
    return {"sessions": sessions, "nextCursor": cursor}


@contextlib.contextmanager
def _credentials(client: LspClient) -> Iterator[None]:
    """Opening a session without credentials: said with window/showMessage and refused. The runtime decides
    from the session folder's settings and .env, as over ACP; checking the user's own beforehand would also
    load settings a second time on the way to the answer."""
    from agent_lsp.errors import AuthError

    try:
        yield
    except AuthError as exc:
        client.notify("window/showMessage", show_message("error", f"Agent: {exc}"))
        raise RequestError("auth_required", str(exc)) from exc


def _editor_parts(client: LspClient, sid: str) -> dict[str, Any]:
    """What the editor answers for a session besides files and permissions: MCP servers' forms (``agent/elicit``),
    and its language features when it advertised ``experimental.agent.codeIntel`` (contract 3)."""
    from agent_lsp.adapters.lsp.code_intel import ClientCodeIntel, advertised

    offer = advertised(client.capabilities)
    intel: CodeIntel | None = ClientCodeIntel(client, offer) if offer is not None else None
    return {"elicitor": LspElicitor(client, sid), "code_intel": intel}


def _update_state(client: LspClient) -> UpdateState:
    """Compactions for every client; subagent nesting only for one that said it nests them
    (experimental.agent.subagents): another would draw the child's messages and calls as the session's own, so it
    keeps the folded invoke_agent call."""
    nests = capability(client.capabilities, "experimental.agent.subagents") is True
    return UpdateState(compaction_supported=True, subagents_supported=nests)


async def _announced(sessions: Sessions, live: LspSession, event: ev.AgentEvent) -> None:
    """An update that follows a request's answer (a task the handler started last, so it runs after it)."""
    sessions.announce(live, event)
