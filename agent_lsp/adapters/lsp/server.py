"""pygls wiring: thin handlers that route LSP messages to the service's parts (plain JSON both ways).

Standard requests arrive as lsprotocol objects and are unstructured to dicts at the door (with the converter we
gave pygls); what we send the client (notifications, our requests) goes out as plain JSON through the frame
writer (outbox.py), never through lsprotocol's types. Every registered handler runs inside
``AnswersFirst.handling`` (ordering.py): a request's answer goes out before what it set going. Only public pygls
API is used here; what we rely on beyond it is in pygls_glue.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
import os
import threading
from collections.abc import Callable, Generator, Mapping
from typing import Any, BinaryIO, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from agent_lsp import __version__
from agent_lsp.adapters import wire
from agent_lsp.adapters.coalesce import TextMerger
from agent_lsp.adapters.launch import LaunchOptions
from agent_lsp.adapters.lsp import capabilities as lsp_caps
from agent_lsp.adapters.lsp import transport
from agent_lsp.adapters.lsp.auto_approve import auto_approve
from agent_lsp.adapters.lsp.files import FileFinder
from agent_lsp.adapters.lsp.framing import FrameReader
from agent_lsp.adapters.lsp.mcp_servers import McpServers
from agent_lsp.adapters.lsp.ordering import AnswersFirst
from agent_lsp.adapters.lsp.outbox import Outbox
from agent_lsp.adapters.lsp.params import RequestError
from agent_lsp.adapters.lsp.pygls_glue import json_converter
from agent_lsp.adapters.lsp.rewinds import fork, rewind
from agent_lsp.adapters.lsp.service import AgentService
from agent_lsp.adapters.lsp.steering import Steering

__all__ = ["build_server", "run"]

log = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])
EXIT_WAIT_S = 10.0  # how long an exit right behind shutdown waits for the sessions to close


class AgentProtocol(LanguageServerProtocol):
    """pygls's protocol, with two additions to the ``initialize`` answer pygls builds from our features."""

    def __init__(self, server: LanguageServer, converter: Any) -> None:
        super().__init__(server, converter)
        # The handler table of our ``agent/*`` extension, in registration order (server.py's ``_request`` and
        # ``_notification`` fill it): what ``initialize`` advertises, so the list cannot omit a served method.
        self.agent_requests: list[str] = []
        self.agent_notifications: list[str] = []

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Generator[Any, Any, types.InitializeResult]:
        general = params.capabilities.general
        if general is not None and general.position_encodings:
            # documents.py counts UTF-16 code units, the encoding every client must support (these params are
            # this request's own, structured from its frame).
            general.position_encodings = [types.PositionEncodingKind.Utf16]
        answer: Any = super().lsp_initialize(params)
        # pygls 2.1 builds the answer in a generator (it runs our ``initialize`` feature); a plain value works too.
        result: types.InitializeResult = (yield from answer) if inspect.isgenerator(answer) else answer
        result.capabilities.experimental = lsp_caps.experimental(self.agent_requests, self.agent_notifications)
        return result


class PyglsClient:
    """The :class:`LspClient` the service talks to: the client's capabilities, and our messages to it."""

    def __init__(self) -> None:
        self.raw_capabilities: dict[str, Any] = {}
        self.outbox: Outbox | None = None
        self._pending: list[tuple[str, Any]] = []  # said before the transport existed (settings problems)
        self._merger = TextMerger(self._send)

    @property
    def capabilities(self) -> Mapping[str, Any]:
        return self.raw_capabilities

    def attach(self, outbox: Outbox) -> None:
        self.outbox = outbox

    def _send(self, method: str, params: Any) -> None:
        assert self.outbox is not None
        self.outbox.notify(method, params)

    def notify(self, method: str, params: Any) -> None:
        if self.outbox is None:
            self._pending.append((method, params))
            return
        self.flush()
        self.outbox.notify(method, params)

    def notify_text(self, method: str, params: Any) -> None:
        """Streamed text, merged with the next within a frame (adapters/coalesce.py); see flush()."""
        if self.outbox is None:
            self._pending.append((method, params))
            return
        self._flush_pending()
        self._merger.offer(method, params)

    def flush(self) -> None:
        """Write whatever waits (frames from before the transport, held text): before any other frame."""
        self._flush_pending()
        self._merger.flush()

    def _flush_pending(self) -> None:
        pending, self._pending = self._pending, []
        for method, params in pending:
            self._send(method, params)

    async def request(self, method: str, params: Any) -> Any:
        assert self.outbox is not None
        self.flush()  # the text the model wrote before a question reaches the editor first
        return await self.outbox.request(method, params)


class AgentServer(LanguageServer):
    def __init__(self, options: LaunchOptions, out: AnswersFirst) -> None:
        self.converter = json_converter()
        super().__init__(
            lsp_caps.SERVER_NAME, __version__, protocol_cls=AgentProtocol, converter_factory=lambda: self.converter
        )
        self.out = out
        self.protocol.set_writer(out)
        self.client = PyglsClient()
        self.service = AgentService(self.client, options)
        self.client.attach(Outbox(out.send))  # what the service said while being built waits for a first frame
        self.shut_down = asyncio.Event()  # the shutdown request has finished closing sessions
        assert isinstance(self.protocol, AgentProtocol)
        self.agent_protocol = self.protocol

    def feature(self, feature_name: str, options: Any | None = None) -> Callable[[F], F]:
        register = super().feature(feature_name, options)
        return lambda handler: register(self._answering(handler))

    def command(self, command_name: str) -> Callable[[F], F]:
        register = super().command(command_name)
        return lambda handler: register(self._answering(handler))

    def _answering(self, handler: F) -> F:
        """``handler`` run as the handler of the request pygls is handling (none for a notification)."""
        out, protocol = self.out, self.protocol
        if asyncio.iscoroutinefunction(handler):

            @functools.wraps(handler)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                with out.handling(protocol.msg_id):
                    return await handler(*args, **kwargs)

            return run_async  # type: ignore[return-value]

        @functools.wraps(handler)
        def run(*args: Any, **kwargs: Any) -> Any:
            with out.handling(protocol.msg_id):
                return handler(*args, **kwargs)

        return run  # type: ignore[return-value]

    def initialize(self, params: Mapping[str, Any]) -> None:
        """The ``initialize`` params as the client sent them (transport.Gate calls this before pygls answers)."""
        caps = params.get("capabilities")
        self.client.raw_capabilities = dict(caps) if isinstance(caps, Mapping) else {}
        self.service.initialize(params)

    def as_json(self, params: Any) -> Any:
        """lsprotocol objects → the JSON the client sent (camelCase dicts); plain JSON passes through."""
        if params is None or isinstance(params, dict | list | str | int | float | bool):
            return params
        return self.converter.unstructure(params)


def _request(server: AgentServer, method: str, handler: Any) -> None:
    """Register an ``agent/*`` request whose handler takes (params, request_id) and may raise RequestError."""

    async def run(params: Any) -> Any:
        raw = server.as_json(params)
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise JsonRpcException(message=f"Invalid params: {method} takes an object", code=wire.INVALID_PARAMS)
        try:
            return await handler(raw, server.protocol.msg_id)
        except RequestError as exc:
            raise JsonRpcException(message=str(exc), code=exc.code) from exc

    server.feature(method)(run)
    server.agent_protocol.agent_requests.append(method)


def _notification(server: AgentServer, method: str, handler: Callable[[dict[str, Any]], None]) -> None:
    """Register an ``agent/*`` notification whose handler takes its params as a dict (``{}`` when not one)."""

    def run(params: Any) -> None:
        raw = server.as_json(params)
        handler(raw if isinstance(raw, dict) else {})

    server.feature(method)(run)
    server.agent_protocol.agent_notifications.append(method)


def build_server(options: LaunchOptions, out: AnswersFirst) -> AgentServer:
    """The server, writing every frame through ``out``."""
    server = AgentServer(options, out)
    service = server.service
    sessions, prompts, commands, fs = service.sessions, service.prompts, service.commands, service.fs
    mcp = McpServers(sessions)
    finder = FileFinder(service.config, mcp)
    steering = Steering(sessions, prompts)

    @server.feature(types.INITIALIZED)
    async def initialized(_params: Any) -> None:
        server.client.flush()
        await service.config.check_auth()

    @server.feature(types.SHUTDOWN)
    async def shutdown(*_args: Any) -> None:
        try:
            await service.shutdown()
        finally:
            server.shut_down.set()

    _request(server, "agent/newSession", lambda p, _id: sessions.new_session(p))
    _request(server, "agent/loadSession", lambda p, _id: sessions.load_session(p))
    _request(server, "agent/listSessions", lambda p, _id: sessions.list_sessions(p))
    _request(server, "agent/setMode", lambda p, _id: sessions.set_mode(p))
    _request(server, "agent/setModel", lambda p, _id: sessions.set_model(p))
    _request(server, "agent/prompt", prompts.prompt)
    _request(server, "agent/findFiles", lambda p, _id: finder.find(p))
    _request(server, "agent/rewind", lambda p, _id: rewind(sessions, p))
    _request(server, "agent/fork", lambda p, _id: fork(sessions, p))
    _request(server, "agent/mcpServers", lambda p, _id: mcp.servers(p))
    _request(server, "agent/mcpRestart", lambda p, _id: mcp.restart(p))
    _request(server, "agent/autoApprove", lambda p, _id: auto_approve(sessions, p))
    _request(server, "agent/steer", lambda p, _id: steering.steer(p))

    _notification(server, "agent/cancel", prompts.cancel)

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def progress_cancel(params: types.WorkDoneProgressCancelParams) -> None:
        prompts.cancel_progress(params.token)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        fs.did_open(server.as_json(params))

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        fs.did_change(server.as_json(params))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        fs.did_close(server.as_json(params))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        fs.did_save(server.as_json(params))

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        await service.did_change_configuration(server.as_json(params.settings))

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_workspace_folders(params: types.DidChangeWorkspaceFoldersParams) -> None:
        service.did_change_workspace_folders(server.as_json(params))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind(k) for k in lsp_caps.CODE_ACTION_KINDS]),
    )
    def code_action(params: types.CodeActionParams) -> list[Any]:
        return commands.code_actions(server.as_json(params))

    for name in lsp_caps.COMMANDS:
        _command(server, name)
    return server


def _command(server: AgentServer, name: str) -> None:
    async def run(*arguments: Any) -> Any:
        try:
            args = [server.as_json(a) for a in arguments]
            return await server.service.commands.execute(name, args, server.protocol.msg_id)
        except RequestError as exc:
            raise JsonRpcException(message=str(exc), code=exc.code) from exc

    server.command(name)(run)


class ClientLogHandler(logging.Handler):
    """Our log records → ``window/logMessage`` (never stdout, which carries frames)."""

    _LEVELS = ((logging.ERROR, 1), (logging.WARNING, 2), (logging.INFO, 3))

    def __init__(self, server: AgentServer, level: int) -> None:
        super().__init__(level)
        self.server = server
        self._busy = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(self._busy, "on", False) or self.server.client.outbox is None:
            return
        self._busy.on = True
        try:
            kind = next((t for lvl, t in self._LEVELS if record.levelno >= lvl), 4)
            self.server.client.notify("window/logMessage", {"type": kind, "message": self.format(record)})
        except Exception:
            self.handleError(record)
        finally:
            self._busy.on = False


def run(options: LaunchOptions, *, reader: FrameReader, stdout: BinaryIO, debug: bool = False) -> int:
    """Serve until exit."""
    writer = transport.FrameWriter(stdout)
    in_flight: set[Any] = set()  # the client's requests handed to pygls and not answered yet
    server = build_server(options, AnswersFirst(writer.write, writer.close, in_flight.discard))
    handler = ClientLogHandler(server, logging.DEBUG if debug else logging.WARNING)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    agent_log = logging.getLogger("agent_lsp")
    agent_log.addHandler(handler)
    threading.Thread(target=_warm_imports, name="agent-lsp-warm", daemon=True).start()
    assert server.client.outbox is not None
    gate = transport.Gate(
        server.protocol,
        server.converter,
        writer.write,
        outbox=server.client.outbox,
        in_flight=in_flight,
        cancel=server.service.prompts.cancel_request,
        before_exit=lambda: _settle(server),
        initialize=server.initialize,
        at_end=server.service.shutdown,
    )
    try:
        return transport.serve(gate, reader)
    finally:
        agent_log.removeHandler(handler)
        server.shutdown()  # type: ignore[no-untyped-call]


async def _settle(server: AgentServer) -> None:
    """Let a shutdown still closing sessions finish before ``exit`` ends the process."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(server.shut_down.wait(), EXIT_WAIT_S)


def _warm_imports() -> None:
    """Import what the first session needs while the editor is still busy starting up."""
    try:
        import agent_lsp.runtime
        import agent_lsp.store.sessions
        import agent_lsp.tools.builtins  # noqa: F401

        if os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_MODEL"):
            # The OpenAI-compatible provider is likely: its SDK costs about a second to import.
            from agent_lsp.model.openai_compat import warm

            warm()
    except Exception:  # a broken import shows up, with its traceback, when a session is created
        log.debug("warming imports failed", exc_info=True)
