"""One language server we started, spoken to with pygls's client: bounded requests, document sync by whole text,
and the diagnostics it publishes. Its answers leave here as plain JSON (see lsp_json.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.protocol import default_converter

from agent_lsp import __version__
from agent_lsp.code_intel.catalog import ServerSpec, language_id
from agent_lsp.code_intel.lsp_json import path_to_uri
from agent_lsp.core.code_intel import CodeIntelError

log = logging.getLogger(__name__)
STDERR_TAIL = 2000  # characters of a server's stderr kept, to say why it died
MAX_OPEN = 24  # files kept open in one server (each is re-read before every request: see PoolCodeIntel)


@dataclass
class _Doc:
    path: Path
    version: int
    text: str
    published_before: int  # the publish count when this version was sent (servers that send no version)


@dataclass
class _Published:
    version: int | None
    items: list[Any]
    count: int


class ManagedServer:
    """A running server for one workspace root and language. ``request`` and ``start`` are bounded; a server that
    exits is noticed (``alive``) and its waiting requests fail with what it said last."""

    def __init__(self, spec: ServerSpec, root: Path, env: Mapping[str, str], *, request_timeout: float) -> None:
        self.spec = spec
        self.root = root
        self.env = dict(env)
        self.request_timeout = request_timeout
        self.capabilities: dict[str, Any] = {}  # from its initialize answer
        self.initialized = False  # it answered initialize: only then are its capabilities known (see ServerPool)
        self._converter = default_converter()  # type: ignore[no-untyped-call]
        self._client = LanguageClient("agent-lsp", __version__)
        self._docs: dict[str, _Doc] = {}
        self._published: dict[str, _Published] = {}
        self._publishes = 0
        self._changed = asyncio.Event()
        self._working: set[str] = set()  # work-done progress begun and not ended (a project loading, an index)
        self._stderr = ""
        self._tasks: list[asyncio.Task[None]] = []
        self._process: asyncio.subprocess.Process | None = None
        self._register_handlers()

    @property
    def label(self) -> str:
        return f"{self.spec.name} ({self.spec.language}, {self.root})"

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.returncode is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def death(self) -> str:
        """Why the server is gone, for the model: its exit code and the end of what it wrote on stderr."""
        code = self._process.returncode if self._process is not None else None
        tail = self._stderr.strip().splitlines()[-3:]
        said = f"; it last said: {' / '.join(tail)}" if tail else ""
        return f"{self.spec.name} exited (code {code}){said}"

    def _register_handlers(self) -> None:
        # Requests servers make of their client are answered plainly, so none of them waits on us.
        handlers: dict[str, Any] = {
            # pygls marks each handler with attributes: a plain function, not a bound method.
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: lambda params: self._on_diagnostics(params),
            types.WORKSPACE_CONFIGURATION: lambda params: [None for _ in params.items],
            types.WINDOW_WORK_DONE_PROGRESS_CREATE: lambda _params: None,
            types.CLIENT_REGISTER_CAPABILITY: lambda _params: None,
            types.WINDOW_SHOW_MESSAGE_REQUEST: lambda _params: None,
            # Notifications we have no use for: taken quietly instead of logged as unknown.
            types.WINDOW_LOG_MESSAGE: lambda _params: None,
            types.WINDOW_SHOW_MESSAGE: lambda _params: None,
            types.TELEMETRY_EVENT: lambda _params: None,
            types.PROGRESS: lambda params: self._on_progress(params),
            "$/typescriptVersion": lambda _params: None,
        }
        for method, handler in handlers.items():
            self._client.feature(method)(handler)  # type: ignore[no-untyped-call]

    def _on_progress(self, params: Any) -> None:
        value = self._converter.unstructure(getattr(params, "value", None))
        kind = value.get("kind") if isinstance(value, dict) else None
        token = str(getattr(params, "token", ""))
        if kind == "begin":
            self._working.add(token)
        elif kind == "end":
            self._working.discard(token)
            self._changed.set()

    async def idle(self, deadline: float) -> bool:
        """Wait (until ``deadline``, loop time) for the server's reported work to end; whether it did."""
        loop = asyncio.get_running_loop()
        while self._working and self.alive:
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)
        return True

    def _on_diagnostics(self, params: types.PublishDiagnosticsParams) -> None:
        self._publishes += 1
        items = self._converter.unstructure(params.diagnostics)
        self._published[params.uri] = _Published(params.version, items, self._publishes)
        self._changed.set()

    async def start(self, limit_s: float) -> None:
        """Spawn and initialize; raises CodeIntelError (the process killed) when it fails or takes too long."""
        try:
            # Its own process group: a wrapper (basedpyright's launcher runs node) and all it starts stop together.
            await self._client.start_io(
                self.spec.command, *self.spec.args, cwd=str(self.root), env=self.env, start_new_session=True
            )
        except OSError as exc:
            raise CodeIntelError(f"could not start {self.spec.name}: {exc}") from exc
        self._process = self._client._server  # pygls's; we read its stderr and kill it when hung
        if self._process is not None and self._process.stderr is not None:
            self._tasks.append(asyncio.create_task(self._drain(self._process.stderr)))
        params = types.InitializeParams(
            process_id=os.getpid(),
            root_uri=path_to_uri(self.root),
            workspace_folders=[types.WorkspaceFolder(path_to_uri(self.root), self.root.name)],
            capabilities=_client_capabilities(),
            initialization_options=dict(self.spec.initialization_options or {}) or None,
            client_info=types.ClientInfo("agent-lsp", __version__),
        )
        try:
            result = await self._bounded(self._client.initialize_async(params), limit_s, "initialize")
        except CodeIntelError:
            await self.stop()
            raise
        self.capabilities = self._converter.unstructure(result.capabilities)
        self._client.initialized(types.InitializedParams())
        self.initialized = True

    async def _drain(self, stream: asyncio.StreamReader) -> None:
        """Read stderr as it comes (an unread pipe would fill and stall the server), keeping its tail."""
        while chunk := await stream.read(4096):
            self._stderr = (self._stderr + chunk.decode("utf-8", "replace"))[-STDERR_TAIL:]

    async def _bounded(self, awaitable: Any, limit_s: float, what: str) -> Any:
        if not self.alive:
            raise CodeIntelError(await self._death())
        exited = asyncio.ensure_future(self._process.wait()) if self._process is not None else None
        work = asyncio.ensure_future(awaitable)
        try:
            waiting = {work, *([exited] if exited else [])}
            done, _ = await asyncio.wait(waiting, timeout=limit_s, return_when="FIRST_COMPLETED")
        finally:
            if exited is not None:
                exited.cancel()
        if work in done:
            try:
                return work.result()
            except Exception as exc:  # an LSP error answer, or pygls failing the request of a server that died
                if not self.alive:
                    raise CodeIntelError(await self._death()) from exc
                raise CodeIntelError(f"{self.spec.name} answered {what} with an error: {exc}") from exc
        # Not cancelled: pygls would fail on the late answer to a cancelled future. The caller sends $/cancelRequest.
        work.add_done_callback(_retrieve)
        if not self.alive:
            raise CodeIntelError(await self._death())
        raise CodeIntelError(
            f"{self.spec.name} did not answer {what} within {limit_s:g} s (a server still analysing the project "
            "answers again quickly once it is done; meanwhile grep_search works)"
        )

    async def _death(self) -> str:
        """death(), once what it wrote on its way out has been read (bounded)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*self._tasks, return_exceptions=True), 1.0)
        return self.death()

    async def request(self, method: str, params: Any, limit_s: float | None = None) -> Any:
        """One request in and out as plain JSON, cancelled after ``limit_s`` (default ``request_timeout``)."""
        params_type = types.METHOD_TO_TYPES[method][2]
        typed = self._converter.structure(params, params_type) if params_type is not None else params
        msg_id = str(uuid.uuid4())
        future = self._client.protocol.send_request_async(method, typed, msg_id=msg_id)
        try:
            result = await self._bounded(future, limit_s or self.request_timeout, method)
        except CodeIntelError:
            if self.alive:
                self._client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
            raise
        return self._converter.unstructure(result)

    def open_paths(self) -> list[Path]:
        """The files this server has been told about (most recently used last)."""
        return [doc.path for doc in self._docs.values()]

    def sync(self, path: Path, text: str) -> int:
        """Tell the server the file's current text (didOpen the first time, didChange when it differs); its version.
        At most MAX_OPEN files stay open: the least recently used is closed first."""
        uri = path_to_uri(path)
        doc = self._docs.pop(uri, None)
        if doc is not None:
            self._docs[uri] = doc  # most recently used last
        elif len(self._docs) >= MAX_OPEN:
            oldest = next(iter(self._docs))
            del self._docs[oldest]
            self._published.pop(oldest, None)
            self._client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(oldest)))
        if doc is None:
            doc = self._docs[uri] = _Doc(path, 1, text, self._publishes)
            item = types.TextDocumentItem(uri, language_id(path, self.spec.language), 1, text)
            self._client.text_document_did_open(types.DidOpenTextDocumentParams(item))
        elif doc.text != text:
            doc.version, doc.text, doc.published_before = doc.version + 1, text, self._publishes
            change = types.TextDocumentContentChangeWholeDocument(text)
            versioned = types.VersionedTextDocumentIdentifier(doc.version, uri)
            self._client.text_document_did_change(types.DidChangeTextDocumentParams(versioned, [change]))
        return doc.version

    def analysed(self, path: Path) -> bool:
        """Whether the server has published diagnostics for the file at all (it has read its project that far)."""
        return path_to_uri(path) in self._published

    def _current(self, uri: str) -> _Published | None:
        """The diagnostics published for the text last sent, or None while the server has not answered for it."""
        doc, pub = self._docs.get(uri), self._published.get(uri)
        if doc is None or pub is None:
            return None
        if pub.version is not None:
            return pub if pub.version >= doc.version else None
        return pub if pub.count > doc.published_before else None

    async def diagnostics(self, path: Path, deadline: float) -> tuple[list[Any], bool]:
        """The last synced text's diagnostics, awaited until ``deadline``; the last known and False if late."""
        uri = path_to_uri(path)
        loop = asyncio.get_running_loop()
        while (pub := self._current(uri)) is None and self.alive:
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)
        if pub is not None:
            return pub.items, True
        old = self._published.get(uri)
        return (old.items if old is not None else []), False

    async def stop(self, limit_s: float = 2.0) -> None:
        """shutdown + exit, then the process gone within ``limit_s`` (its whole group killed if it lingers)."""
        process = self._process
        if process is not None and process.returncode is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._client.shutdown_async(None), limit_s)
            with contextlib.suppress(Exception):
                self._client.exit(None)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), limit_s)
        if process is not None:
            self.kill()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), limit_s)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._client.stop(), limit_s)  # type: ignore[no-untyped-call]
        for task in self._tasks:
            task.cancel()

    def kill(self) -> None:
        """SIGKILL to the server's process group (itself and anything it started); nothing if it is all gone."""
        if self._process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._process.pid, signal.SIGKILL)


def _retrieve(future: asyncio.Future[Any]) -> None:
    """A request nobody waits for any more: its late failure is not an unretrieved exception."""
    if not future.cancelled():
        future.exception()


def _client_capabilities() -> types.ClientCapabilities:
    """What we can take: hierarchical symbols, markdown hover, links, call hierarchy, versioned diagnostics."""
    return types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(did_save=False),
            hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]),
            definition=types.DefinitionClientCapabilities(link_support=True),
            implementation=types.ImplementationClientCapabilities(link_support=True),
            document_symbol=types.DocumentSymbolClientCapabilities(hierarchical_document_symbol_support=True),
            call_hierarchy=types.CallHierarchyClientCapabilities(),
            rename=types.RenameClientCapabilities(prepare_support=False),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
        ),
        workspace=types.WorkspaceClientCapabilities(
            workspace_folders=True,
            configuration=True,
            symbol=types.WorkspaceSymbolClientCapabilities(),
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
        ),
        # Progress tells when a server is still loading its project (tsserver): project-wide questions wait for it.
        window=types.WindowClientCapabilities(work_done_progress=True),
    )
