"""pygls wiring: thin handlers that turn LSP messages into AgentService calls (plain JSON both ways).

Standard requests arrive as lsprotocol objects and are unstructured to dicts at the door; our own requests
to the client are sent as raw JSON-RPC messages so their params never pass through lsprotocol's types.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import uuid
from collections.abc import Mapping
from concurrent.futures import Future
from typing import Any, BinaryIO

from cattrs import Converter
from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage

from agent_lsp import __version__
from agent_lsp.adapters.coalesce import TextMerger
from agent_lsp.adapters.lsp import capabilities as lsp_caps
from agent_lsp.adapters.lsp import transport
from agent_lsp.adapters.lsp.client import ClientRequestError
from agent_lsp.adapters.lsp.framing import FrameReader
from agent_lsp.adapters.lsp.service import INVALID_PARAMS, AgentService, RequestError, ServiceOptions

log = logging.getLogger(__name__)
EXIT_WAIT_S = 10.0  # how long an exit right behind shutdown waits for the sessions to close


class AgentProtocol(LanguageServerProtocol):
    """Adds raw JSON requests/notifications, a pre-answered ``initialize`` and prompt-aware cancellation."""

    preanswered_id: Any = None
    service: AgentService | None = None

    def __init__(self, server: Any, converter: Converter) -> None:
        super().__init__(server, converter)
        self.outgoing: set[str] = set()  # our requests awaiting the client's answer (transport.Gate reads it)
        self.in_flight: set[Any] = set()  # the client's requests handed to pygls and not answered yet

    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:  # type: ignore[override]
        self.in_flight.discard(msg_id)
        if self.preanswered_id is not None and msg_id == self.preanswered_id:
            self.preanswered_id = None  # main.py already answered initialize before pygls was imported
            return
        super()._send_response(msg_id, result, error)

    def _handle_cancel_notification(self, msg_id: Any) -> None:  # type: ignore[override]
        # A cancelled prompt still ends its turn properly and answers {"stopReason": "cancelled"}.
        if self.service is not None and self.service.cancel_request(msg_id):
            return
        super()._handle_cancel_notification(msg_id)

    def notify_raw(self, method: str, params: Any) -> None:
        self._send_data(JsonRPCNotification(method=method, jsonrpc="2.0", params=params))

    def request_raw(self, method: str, params: Any) -> tuple[str, Future[Any]]:
        msg_id = f"agent-{uuid.uuid4().hex}"
        future: Future[Any] = Future()
        self._request_futures[msg_id] = future
        self._result_types[msg_id] = None  # the answer stays plain JSON
        self.outgoing.add(msg_id)
        self._send_data(JsonRPCRequestMessage(id=msg_id, method=method, jsonrpc="2.0", params=params))
        return msg_id, future


class PyglsClient:
    """The :class:`LspClient` the service talks to."""

    def __init__(self, server: AgentServer) -> None:
        self.server = server
        self.raw_capabilities: dict[str, Any] = {}
        self._pending: list[tuple[str, Any]] = []  # said before the transport existed (settings problems)
        self._merger = TextMerger(lambda method, params: self.server.agent_protocol.notify_raw(method, params))

    @property
    def capabilities(self) -> Mapping[str, Any]:
        return self.raw_capabilities

    def notify(self, method: str, params: Any) -> None:
        protocol = self.server.agent_protocol
        if protocol.writer is None:
            self._pending.append((method, params))
            return
        self.flush()
        protocol.notify_raw(method, params)

    def notify_text(self, method: str, params: Any) -> None:
        """Streamed text, merged with the next within a frame (adapters/coalesce.py); see flush()."""
        if self.server.agent_protocol.writer is None:
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
            self.server.agent_protocol.notify_raw(method, params)

    async def request(self, method: str, params: Any) -> Any:
        protocol = self.server.agent_protocol
        self.flush()  # the text the model wrote before a question reaches the editor first
        msg_id, future = protocol.request_raw(method, params)
        try:
            return await asyncio.wrap_future(future)
        except JsonRpcException as exc:
            raise ClientRequestError(f"{method}: {exc.message} ({exc.code})") from exc
        except asyncio.CancelledError:
            protocol._request_futures.pop(msg_id, None)
            protocol.outgoing.discard(msg_id)
            protocol.notify_raw("$/cancelRequest", {"id": msg_id})
            raise


def json_converter() -> Converter:
    """lsprotocol's converter, except that params and results of methods it does not know stay plain JSON
    (pygls would turn them into namedtuples, renaming keys such as ``_meta``)."""
    converter = get_converter()

    def keep(obj: dict[str, Any], cls: type[Any]) -> Any:
        return cls(**obj)

    for message in (JsonRPCRequestMessage, JsonRPCResponseMessage, JsonRPCNotification):
        converter.register_structure_hook(message, keep)
    return converter


class AgentServer(LanguageServer):
    def __init__(self, options: ServiceOptions) -> None:
        self.converter = json_converter()
        super().__init__(
            lsp_caps.SERVER_NAME, __version__, protocol_cls=AgentProtocol, converter_factory=lambda: self.converter
        )
        self.client = PyglsClient(self)
        self.service = AgentService(self.client, options)
        self.initialized_raw = False
        self.shut_down = asyncio.Event()  # the shutdown request has finished closing sessions
        self.agent_protocol.service = self.service

    @property
    def agent_protocol(self) -> AgentProtocol:
        protocol = self.protocol
        assert isinstance(protocol, AgentProtocol)
        return protocol

    def as_json(self, params: Any) -> Any:
        """lsprotocol objects → the JSON the client sent (camelCase dicts); plain JSON passes through."""
        if params is None or isinstance(params, dict | list | str | int | float | bool):
            return params
        return self.protocol._converter.unstructure(params)


def adopt_initialize(server: AgentServer, params: Mapping[str, Any]) -> None:
    """Take the client's capabilities and settings, preferably as the exact JSON it sent."""
    caps = params.get("capabilities")
    server.client.raw_capabilities = dict(caps) if isinstance(caps, Mapping) else {}
    server.service.initialize(params)
    server.initialized_raw = True


def _request(server: AgentServer, method: str, handler: Any) -> None:
    """Register an ``agent/*`` request whose handler takes (params, request_id) and may raise RequestError."""

    async def run(params: Any) -> Any:
        raw = server.as_json(params)
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise JsonRpcException(message=f"Invalid params: {method} takes an object", code=INVALID_PARAMS)
        try:
            return await handler(raw, server.protocol.msg_id)
        except RequestError as exc:
            raise JsonRpcException(message=str(exc), code=exc.code) from exc

    server.feature(method)(run)


def build_server(options: ServiceOptions) -> AgentServer:
    server = AgentServer(options)
    service = server.service

    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        if not server.initialized_raw:  # main.py did not see this initialize
            adopt_initialize(server, server.as_json(params))

    @server.feature(types.INITIALIZED)
    async def initialized(_params: Any) -> None:
        server.client.flush()
        await service.initialized()

    @server.feature(types.SHUTDOWN)
    async def shutdown(*_args: Any) -> None:
        try:
            await service.shutdown()
        finally:
            server.shut_down.set()

    _request(server, "agent/newSession", lambda p, _id: service.new_session(p))
    _request(server, "agent/loadSession", lambda p, _id: service.load_session(p))
    _request(server, "agent/listSessions", lambda p, _id: service.list_sessions(p))
    _request(server, "agent/setMode", lambda p, _id: service.set_mode(p))
    _request(server, "agent/setModel", lambda p, _id: service.set_model(p))
    _request(server, "agent/prompt", service.prompt)

    @server.feature("agent/cancel")
    def cancel(params: Any) -> None:
        raw = server.as_json(params)
        service.cancel(raw if isinstance(raw, dict) else {})

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def progress_cancel(params: types.WorkDoneProgressCancelParams) -> None:
        service.cancel_progress(params.token)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        service.did_open(server.as_json(params))

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        service.did_change(server.as_json(params))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        service.did_close(server.as_json(params))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        service.did_save(server.as_json(params))

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        await service.did_change_configuration(server.as_json(params.settings))

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_workspace_folders(params: types.DidChangeWorkspaceFoldersParams) -> None:
        service.did_change_workspace_folders(server.as_json(params))

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION)
    def code_action(params: types.CodeActionParams) -> list[Any]:
        return service.code_actions(server.as_json(params))

    for name in lsp_caps.COMMANDS:
        _command(server, name)
    return server


def _command(server: AgentServer, name: str) -> None:
    async def run(*arguments: Any) -> Any:
        try:
            args = [server.as_json(a) for a in arguments]
            return await server.service.execute_command(name, args, server.protocol.msg_id)
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
        if getattr(self._busy, "on", False) or self.server.agent_protocol.writer is None:
            return
        self._busy.on = True
        try:
            kind = next((t for lvl, t in self._LEVELS if record.levelno >= lvl), 4)
            self.server.client.notify("window/logMessage", {"type": kind, "message": self.format(record)})
        except Exception:
            self.handleError(record)
        finally:
            self._busy.on = False


def run(
    options: ServiceOptions,
    *,
    reader: FrameReader,
    stdout: BinaryIO,
    first: transport.Item | None = None,
    preanswered: Mapping[str, Any] | None = None,
    debug: bool = False,
) -> int:
    """Serve until exit. ``first``: the frame main.py read; ``preanswered``: that frame when it was the
    initialize request main.py already answered (raw JSON)."""
    server = build_server(options)
    protocol = server.agent_protocol
    if preanswered is not None:
        protocol.preanswered_id = preanswered["id"]
        params = preanswered.get("params")
        adopt_initialize(server, params if isinstance(params, Mapping) else {})
    handler = ClientLogHandler(server, logging.DEBUG if debug else logging.WARNING)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    agent_log = logging.getLogger("agent_lsp")
    agent_log.addHandler(handler)
    threading.Thread(target=_warm_imports, name="agent-lsp-warm", daemon=True).start()
    writer = transport.FrameWriter(stdout)
    protocol.set_writer(writer)
    gate = transport.Gate(
        protocol,
        server.converter,
        writer.write,
        outgoing=protocol.outgoing,
        in_flight=protocol.in_flight,
        preanswered=preanswered["id"] if preanswered is not None else None,
        before_exit=lambda: _settle(server),
    )
    try:
        return transport.serve(gate, reader, first)
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
