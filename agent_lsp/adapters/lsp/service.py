"""The agent behind the LSP server: sessions, prompts with progress, code-action commands, configuration.

Speaks plain JSON through an :class:`LspClient`; server.py only routes messages here. The runtime (and
with it the model SDK, tools and settings) is imported when the first session is created, not before.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_lsp import events as ev
from agent_lsp.adapters.lsp import capabilities as lsp_caps
from agent_lsp.adapters.lsp import client as caps
from agent_lsp.adapters.lsp import convert
from agent_lsp.adapters.lsp.client import ClientRequestError, LspClient
from agent_lsp.adapters.lsp.client_fs import LspFileSystem
from agent_lsp.adapters.lsp.config import LspConfig, merge, parse_config
from agent_lsp.adapters.lsp.confirmer import LspConfirmer
from agent_lsp.adapters.lsp.documents import DocumentStore, canonical, uri_to_path
from agent_lsp.adapters.updates import UpdateState, to_updates
from agent_lsp.model.catalog import CHOICE_IDS

if TYPE_CHECKING:
    from agent_lsp.runtime import Runtime, SessionHandle

log = logging.getLogger(__name__)

INVALID_PARAMS = -32602
INVALID_REQUEST = -32600
AUTH_REQUIRED = -32000
NOT_FOUND = -32001
REPLY_LIMIT = 4000  # characters of the agent's answer shown by window/showMessage to plain clients

MODES = (
    ("default", "Default", "Ask before editing files or running commands"),
    ("auto_edit", "Auto edit", "Edit files without asking; ask before running commands"),
    ("yolo", "YOLO", "Run every tool without asking"),
    ("plan", "Plan", "Read-only: research and propose a plan, change nothing"),
)
MODELS = CHOICE_IDS


class RequestError(Exception):
    """Becomes a JSON-RPC error answer."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def _opt_str(params: Mapping[str, Any], key: str) -> str | None:
    """An optional string field (empty counts as absent); any other type is -32602 naming the field."""
    value = params.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise RequestError(INVALID_PARAMS, f"{key} must be a string")
    return value


def _opt_int(params: Mapping[str, Any], key: str, default: int) -> int:
    value = params.get(key)
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise RequestError(INVALID_PARAMS, f"{key} must be a positive integer")
    return value


@dataclass
class ServiceOptions:
    fake_responses: Path | None = None
    model: str | None = None
    approval_mode: str | None = None


@dataclass
class _Live:
    handle: SessionHandle
    state: UpdateState = field(default_factory=UpdateState)
    request_id: Any = None
    token: Any = None
    models: list[tuple[str, str]] | None = None  # the model picker: what the endpoints offer
    busy: bool = False  # a prompt holds this session (from its arrival, not only once the turn runs)
    cancel_pending: bool = False  # cancelled before its turn started


class AgentService:
    def __init__(self, client: LspClient, options: ServiceOptions | None = None) -> None:
        self.client = client
        self.options = options or ServiceOptions()
        self.documents = DocumentStore()
        self.fs = LspFileSystem(self.documents, client)
        self.config = LspConfig()
        self.roots: list[Path] = []
        self.sessions: dict[str, _Live] = {}
        self.current: str | None = None
        self._runtime: Runtime | None = None
        self._lock = asyncio.Lock()
        self._turns: set[asyncio.Task[None]] = set()  # code-action turns already answered (plain clients)

    # --- lifecycle and configuration -------------------------------------------------------------------

    def initialize(self, params: Mapping[str, Any]) -> None:
        for folder in params.get("workspaceFolders") or []:
            path = uri_to_path(folder.get("uri", ""))
            if path is not None:
                self.roots.append(path)
        if not self.roots:
            root = params.get("rootUri")
            path = uri_to_path(root) if isinstance(root, str) else None
            if path is None and isinstance(params.get("rootPath"), str):
                path = Path(params["rootPath"])
            if path is not None:
                self.roots.append(path)
        self._apply_config(params.get("initializationOptions"))

    async def initialized(self) -> None:
        """Say at once when no model can be used, rather than at the first prompt."""
        problem = await asyncio.to_thread(lambda: self.runtime().check_auth())
        if problem:
            self.show_message("error", f"Agent: {problem}")

    def did_change_workspace_folders(self, params: Mapping[str, Any]) -> None:
        """The editor's folders are the workspace roots: for sessions made later and for those running."""
        event = params.get("event") or {}
        removed = [p for p in (_folder_path(f) for f in event.get("removed") or []) if p is not None]
        added = [p for p in (_folder_path(f) for f in event.get("added") or []) if p is not None]
        gone = {canonical(p) for p in removed}
        self.roots = [r for r in self.roots if canonical(r) not in gone]
        self.roots.extend(p for p in added if canonical(p) not in {canonical(r) for r in self.roots})
        for live in self.sessions.values():
            workspace = live.handle.workspace
            for path in removed:
                workspace.remove_root(path)
            for path in added:
                if path.is_dir():
                    workspace.add_root(path)

    async def did_change_configuration(self, settings: Any) -> None:
        if not settings and caps.capability(self.client.capabilities, "workspace.configuration"):
            try:
                answer = await self.client.request("workspace/configuration", {"items": [{"section": "agentLsp"}]})
            except ClientRequestError as exc:
                log.warning("workspace/configuration failed: %s", exc)
                return
            # null is a valid answer (the client has no such section): nothing to apply.
            settings = {"agentLsp": answer[0]} if isinstance(answer, list) and answer and answer[0] else None
        self._apply_config(settings)
        for live in self.sessions.values():
            session = live.handle.session
            if self.config.model:
                session.model = self.config.model
            if self.config.approval_mode:
                refused = session.policy.set_mode(self.config.approval_mode)  # type: ignore[arg-type]
                if refused:
                    self.show_message("warning", f"Approval mode {self.config.approval_mode} refused: {refused}")

    def _apply_config(self, raw: Any) -> None:
        if raw is None:
            return
        update = parse_config(raw)
        self.config = merge(self.config, update)
        for problem in update.problems:
            self.show_message("warning", f"Settings: {problem}")
        if self._runtime is not None and self.config.checkpointing is not None:
            self._runtime.options.checkpointing = self.config.checkpointing

    async def shutdown(self) -> None:
        for task in list(self._turns):
            task.cancel()
        for live in list(self.sessions.values()):
            await live.handle.aclose()
        self.sessions.clear()

    def show_message(self, level: str, message: str) -> None:
        self.client.notify("window/showMessage", {"type": convert.MESSAGE_TYPE[level], "message": message})

    # --- sessions --------------------------------------------------------------------------------------

    def runtime(self) -> Runtime:
        if self._runtime is None:
            from agent_lsp.runtime import Runtime, RuntimeOptions, replay_delay

            checkpointing = self.config.checkpointing if self.config.checkpointing is not None else True
            self._runtime = Runtime(
                RuntimeOptions(
                    fake_responses=self.options.fake_responses,
                    model=self.options.model,
                    approval_mode=self.options.approval_mode,  # type: ignore[arg-type]
                    checkpointing=checkpointing,
                    chunk_delay=replay_delay(os.environ),
                )
            )
        return self._runtime

    def _setup(self, params: Mapping[str, Any]) -> Any:
        from agent_lsp.runtime import SessionSetup

        runtime = self.runtime()
        problem = runtime.check_auth()
        if problem:
            self.show_message("error", f"Agent: {problem}")
            raise RequestError(AUTH_REQUIRED, problem)
        raw_cwd, model = _opt_str(params, "cwd"), _opt_str(params, "model")
        cwd = Path(raw_cwd) if raw_cwd else (self.roots[0] if self.roots else Path(os.getcwd()))
        mode = _opt_str(params, "approvalMode") or self.config.approval_mode
        if mode is not None and mode not in convert_modes():
            raise RequestError(INVALID_PARAMS, f"approvalMode must be one of {', '.join(convert_modes())}")
        holder: dict[str, str] = {}
        confirmer = LspConfirmer(self.client, lambda: holder.get("id", ""))
        setup = SessionSetup(
            cwd=cwd,
            confirmer=confirmer,
            extra_roots=[r for r in self.roots if r != cwd],
            approval_mode=mode,  # type: ignore[arg-type]
            model=model or self.config.model,
            client_mcp_servers=self.config.mcp_servers,
            overrides=dict(self.config.overrides) or None,
            editor_trust=self.config.trust,
        )
        return setup, holder

    async def new_session(self, params: Mapping[str, Any]) -> dict[str, Any]:
        setup, holder = self._setup(params)
        live = await self._open(setup, holder, lambda: self.runtime().create_session(setup))
        return self._describe(live)

    async def load_session(self, params: Mapping[str, Any]) -> dict[str, Any]:
        session_id = params.get("sessionId")
        if not isinstance(session_id, str):
            raise RequestError(INVALID_PARAMS, "sessionId is required")
        setup, holder = self._setup(params)  # bad params must not cost the open session
        old = self.sessions.pop(session_id, None)
        if old is not None:
            await old.handle.aclose()
        from agent_lsp.store.sessions import SessionNotFoundError

        replay: list[ev.AgentEvent] = []

        async def create() -> SessionHandle:
            handle, events = await self.runtime().load_session(session_id, setup)
            replay.extend(events)
            return handle

        try:
            live = await self._open(setup, holder, create)
        except SessionNotFoundError as exc:
            raise RequestError(NOT_FOUND, f"no saved session {session_id} for {setup.cwd}") from exc
        for event in replay:
            updates, live.state = to_updates(event, live.state, replay=True)
            for update in updates:
                self.client.notify("agent/update", {"sessionId": session_id, "update": update, "replay": True})
        return self._describe(live)

    async def _open(self, setup: Any, holder: dict[str, str], create: Any) -> _Live:
        setup.fs = self.fs
        handle: SessionHandle = await create()
        models = await handle.model_choices()
        holder["id"] = handle.session.id
        for notice in handle.notices:
            self.client.notify("window/showMessage", convert.notice_message(notice))
        handle.notices.clear()
        handle.notice_sink = lambda n: self.client.notify("window/showMessage", convert.notice_message(n))
        live = _Live(handle, models=models)
        self.sessions[handle.session.id] = live
        self.current = handle.session.id
        return live

    def _describe(self, live: _Live) -> dict[str, Any]:
        session = live.handle.session
        models = live.models if live.models is not None else [(m, m) for m in MODELS]
        if session.model not in (m for m, _ in models):
            models = [(session.model, session.model), *models]
        return {
            "sessionId": session.id,
            "modes": {
                "currentModeId": session.policy.mode,
                "availableModes": [{"id": i, "name": n, "description": d} for i, n, d in MODES],
            },
            "models": {
                "currentModelId": session.model,
                "availableModels": [{"modelId": m, "name": n} for m, n in models],
            },
            "provider": live.handle.provider_summary(),
            "commands": [
                {"name": c.name, "description": c.description, **({"input": {"hint": c.hint}} if c.hint else {})}
                for c in live.handle.command_specs()
            ],
        }

    def _live(self, params: Mapping[str, Any]) -> _Live:
        session_id = params.get("sessionId")
        if not isinstance(session_id, str):
            raise RequestError(INVALID_PARAMS, "sessionId is required and must be a string")
        live = self.sessions.get(session_id)
        if live is None:
            raise RequestError(NOT_FOUND, f"unknown sessionId {session_id!r}; create one with agent/newSession")
        return live

    async def list_sessions(self, params: Mapping[str, Any]) -> dict[str, Any]:
        from agent_lsp.store.sessions import SessionStore

        raw_cwd = _opt_str(params, "cwd")
        cwd = Path(raw_cwd) if raw_cwd else (self.roots[0] if self.roots else Path(os.getcwd()))
        store = SessionStore(cwd.resolve())
        cursor_in, limit = _opt_str(params, "cursor"), _opt_int(params, "limit", 50)
        try:
            infos, cursor = await asyncio.to_thread(store.list, cursor_in, limit)
        except ValueError as exc:
            raise RequestError(INVALID_PARAMS, f"bad cursor: {exc}") from exc
        sessions = [
            {
                "sessionId": i.id,
                "title": i.title,
                "cwd": i.cwd,
                "createdAt": i.created,
                "updatedAt": i.updated,
                "promptCount": i.prompt_count,
            }
            for i in infos
            if i.prompt_count  # a chat nobody wrote in (an editor opens one at start) is nothing to resume
        ]
        return {"sessions": sessions, "nextCursor": cursor}

    async def set_mode(self, params: Mapping[str, Any]) -> dict[str, Any]:
        live = self._live(params)
        mode = params.get("modeId")
        if mode not in convert_modes():
            raise RequestError(INVALID_PARAMS, f"modeId must be one of {', '.join(convert_modes())}")
        refused = live.handle.session.policy.set_mode(mode)
        if refused:
            raise RequestError(INVALID_REQUEST, refused)
        update = {"sessionUpdate": "current_mode_update", "currentModeId": mode}
        self.client.notify("agent/update", {"sessionId": live.handle.session.id, "update": update})
        return {}

    async def set_model(self, params: Mapping[str, Any]) -> dict[str, Any]:
        live = self._live(params)
        model = params.get("modelId")
        if not isinstance(model, str) or not model:
            raise RequestError(INVALID_PARAMS, "modelId must be a model name")
        try:
            live.handle.set_model(model)
        except ValueError as exc:
            raise RequestError(INVALID_PARAMS, f"modelId: {exc}") from exc
        live.models = await live.handle.model_choices()
        return {"models": self._describe(live)["models"]}

    # --- prompts ---------------------------------------------------------------------------------------

    async def prompt(self, params: Mapping[str, Any], request_id: Any = None, summary: str = "") -> dict[str, Any]:
        """Run one turn. ``summary``: what it is about in words, for progress (else the prompt's first line)."""
        live = self._live(params)
        session = live.handle.session
        try:
            prompt = convert.prompt_input(params.get("prompt", ""), params.get("context"))
        except (ValueError, KeyError, TypeError) as exc:
            raise RequestError(INVALID_PARAMS, f"bad prompt: {exc}") from exc
        token = params.get("workDoneToken")
        if token is not None and (not isinstance(token, int | str) or isinstance(token, bool)):
            raise RequestError(INVALID_PARAMS, "workDoneToken must be an integer or a string")
        if session.running or live.busy:
            # The same answer (code and words) as ACP's session/prompt: the first prompt keeps running untouched.
            raise RequestError(INVALID_REQUEST, "A prompt is already running in this session; cancel it first")
        live.busy, live.cancel_pending = True, False  # claimed before the first await: no second prompt slips in
        live.request_id = request_id
        try:
            return await self._run_prompt(live, prompt, token, summary)
        finally:
            live.busy = live.cancel_pending = False
            live.request_id = live.token = None

    async def _run_prompt(self, live: _Live, prompt: str | list[Any], token: Any, summary: str) -> dict[str, Any]:
        session = live.handle.session
        self.current = session.id
        if token is None and caps.capability(self.client.capabilities, "window.workDoneProgress"):
            token = f"agent-{uuid.uuid4().hex[:12]}"
            try:
                await self.client.request("window/workDoneProgress/create", {"token": token})
            except ClientRequestError as exc:
                log.info("no progress for this prompt: %s", exc)
                token = None
        live.token = token
        if live.cancel_pending:  # cancelled while the progress bar was being created
            return {"stopReason": "cancelled"}
        if live.handle.refresh_commands():  # a .toml command was added, edited or removed
            commands = self._describe(live)["commands"]
            update = {"sessionUpdate": "available_commands_update", "availableCommands": commands}
            self.client.notify("agent/update", {"sessionId": session.id, "update": update})
        text = prompt if isinstance(prompt, str) else " ".join(p.text for p in prompt if p.text)
        tracker = convert.ProgressTracker()
        stop: str = "cancelled"
        reply: list[str] = []
        if token is not None:
            about = summary or text
            begin = convert.progress_begin(convert.progress_title(about), convert.progress_summary(about))
            self._progress(token, begin)
        try:
            async for event in session.send(prompt):
                self._deliver(live, event)
                message = tracker.message(event)
                if message and token is not None:
                    self._progress(token, convert.progress_report(message))
                if isinstance(event, ev.Content):
                    reply.append(event.text)
                elif isinstance(event, ev.Error):
                    self.show_message("error", f"Agent: {event.message}")
                elif isinstance(event, ev.Notice) and event.level != "info":
                    self.client.notify("window/showMessage", convert.notice_message(event))
                elif isinstance(event, ev.Stop):
                    stop = event.reason
        finally:
            if token is not None:
                self._progress(token, convert.progress_end(stop, "".join(reply)))
            self.client.flush()  # all the text before the prompt's answer
        answer = "".join(reply).strip()
        if answer and not caps.knows_agent_protocol(self.client.capabilities):
            # A client that cannot draw agent/update still gets to read the answer.
            shown = answer if len(answer) <= REPLY_LIMIT else answer[: REPLY_LIMIT - 1] + "…"
            self.show_message("info", shown)
        return {"stopReason": stop}

    def _deliver(self, live: _Live, event: ev.AgentEvent) -> None:
        updates, live.state = to_updates(event, live.state)
        if isinstance(event, ev.Content) and len(updates) == 1:
            # The model's streamed text: consecutive chunks within a frame go out as one message.
            self.client.notify_text("agent/update", {"sessionId": live.handle.session.id, "update": updates[0]})
            return
        for update in updates:
            self.client.notify("agent/update", {"sessionId": live.handle.session.id, "update": update})

    def _progress(self, token: Any, value: dict[str, Any]) -> None:
        self.client.notify("$/progress", {"token": token, "value": value})

    def cancel(self, params: Mapping[str, Any]) -> None:
        session_id = params.get("sessionId")
        live = self.sessions.get(session_id) if isinstance(session_id, str) else None
        if live is not None:
            self._cancel(live)

    def _cancel(self, live: _Live) -> None:
        if live.handle.session.running:
            live.handle.session.cancel()
        elif live.busy:
            live.cancel_pending = True

    def cancel_request(self, request_id: Any) -> bool:
        """``$/cancelRequest`` for a running prompt: end the turn (it answers stopReason "cancelled")."""
        for live in self.sessions.values():
            if live.request_id is not None and live.request_id == request_id:
                self._cancel(live)
                return True
        return False

    def cancel_progress(self, token: Any) -> None:
        for live in self.sessions.values():
            if live.token is not None and live.token == token:
                self._cancel(live)

    # --- code actions and commands ---------------------------------------------------------------------

    def code_actions(self, params: Mapping[str, Any]) -> list[Any]:
        context = params.get("context") or {}
        return convert.code_actions(
            params["textDocument"]["uri"], params["range"], context.get("diagnostics") or [], context.get("only")
        )

    async def execute_command(self, command: str, arguments: list[Any], request_id: Any = None) -> Any:
        if command == lsp_caps.CMD_CANCEL:
            target = arguments[0] if arguments and isinstance(arguments[0], Mapping) else {"sessionId": self.current}
            self.cancel(target)
            return None
        if command not in (lsp_caps.CMD_FIX, lsp_caps.CMD_EXPLAIN, lsp_caps.CMD_EDIT_SELECTION, lsp_caps.CMD_PROMPT):
            raise RequestError(INVALID_PARAMS, f"unknown command {command}")
        if command != lsp_caps.CMD_PROMPT:
            if not arguments or not isinstance(arguments[0], Mapping):
                raise RequestError(INVALID_PARAMS, f"{command} takes one argument: {{uri, range, diagnostics?}}")
            try:
                convert.check_context(arguments[0])
            except ValueError as exc:
                raise RequestError(INVALID_PARAMS, f"{command}: {exc}") from exc
        if caps.knows_agent_protocol(self.client.capabilities):
            # Our own clients draw agent/update and want the turn's stop reason as the answer.
            return await self._command_turn(command, arguments, request_id)
        # Any other client waits for this answer with a timeout (Eglot: 10 s) while the turn, and the
        # permission questions in it, can take minutes: answer now, let progress and messages tell the rest.
        task = asyncio.create_task(self._background_turn(command, arguments))
        self._turns.add(task)
        task.add_done_callback(self._turns.discard)
        return None

    async def _background_turn(self, command: str, arguments: list[Any]) -> None:
        try:
            await self._command_turn(command, arguments, None)
        except RequestError as exc:
            self.show_message("error", f"Agent: {exc}")
        except Exception as exc:  # a bug: say so where the user looks, keep the traceback in the log
            log.exception("%s failed", command)
            self.show_message("error", f"Agent: {command} failed: {exc}")

    async def _command_turn(self, command: str, arguments: list[Any], request_id: Any) -> Any:
        if command == lsp_caps.CMD_PROMPT:
            arg = arguments[0] if arguments else ""
            request: dict[str, Any] = dict(arg) if isinstance(arg, Mapping) else {"prompt": str(arg)}
            request["sessionId"] = request.get("sessionId") or await self._current_session()
            result = await self.prompt(request, request_id)
            return {"sessionId": request["sessionId"], **result}
        context = dict(arguments[0])
        # An editor that keeps its own chat session says which one; the context carries it no further.
        wanted = context.pop("sessionId", None)
        context.setdefault("selectedText", await self._selected_text(context))
        instruction = context.pop("instruction", None)
        if command == lsp_caps.CMD_EDIT_SELECTION and not instruction:
            try:
                choice = await self.client.request("window/showMessageRequest", convert.edit_choice_request())
            except ClientRequestError:
                choice = None
            instruction = choice.get("title") if isinstance(choice, Mapping) else None
            if not instruction:
                return None
        text = convert.command_prompt(command, context, instruction)
        summary = convert.command_summary(command, context, instruction)
        session_id = wanted if isinstance(wanted, str) and wanted in self.sessions else await self._current_session()
        result = await self.prompt({"sessionId": session_id, "prompt": text}, request_id, summary)
        return {"sessionId": session_id, **result}

    async def _current_session(self) -> str:
        async with self._lock:
            if self.current is None or self.current not in self.sessions:
                await self.new_session({})
            assert self.current is not None
            return self.current

    async def _selected_text(self, context: Mapping[str, Any]) -> str:
        path = uri_to_path(str(context.get("uri", "")))
        rng = context.get("range")
        if path is None or not isinstance(rng, Mapping):
            return ""
        from agent_lsp.adapters.lsp.documents import line_starts, offset_at

        try:
            text = await self.fs.read_text(path)
        except OSError:
            return ""
        starts = line_starts(text)
        begin = offset_at(text, starts, rng["start"]["line"], rng["start"]["character"])
        end = offset_at(text, starts, rng["end"]["line"], rng["end"]["character"])
        if begin == end:  # no selection: the line under the cursor
            line = rng["start"]["line"]
            begin = offset_at(text, starts, line, 0)
            end = offset_at(text, starts, line + 1, 0)
        return text[begin:end]

    # --- documents -------------------------------------------------------------------------------------

    def did_open(self, params: Mapping[str, Any]) -> None:
        doc = params["textDocument"]
        opened = self.documents.open(doc["uri"], doc["text"], doc.get("version"), doc.get("languageId", ""))
        self.fs.document_changed(opened.path if opened else None)

    def did_change(self, params: Mapping[str, Any]) -> None:
        doc = params["textDocument"]
        self.documents.change(doc["uri"], doc.get("version"), params.get("contentChanges") or [])
        self.fs.document_changed()

    def did_close(self, params: Mapping[str, Any]) -> None:
        uri = params["textDocument"]["uri"]
        self.documents.close(uri)
        path = uri_to_path(uri)
        self.fs.document_changed(path)

    def did_save(self, params: Mapping[str, Any]) -> None:
        path = uri_to_path(params["textDocument"]["uri"])
        if path is not None:
            self.fs.forget_unsaved(path)


def _folder_path(folder: Any) -> Path | None:
    uri = folder.get("uri") if isinstance(folder, Mapping) else None
    return uri_to_path(uri) if isinstance(uri, str) else None


def convert_modes() -> tuple[str, ...]:
    return tuple(m[0] for m in MODES)
