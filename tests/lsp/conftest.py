"""A pytest-lsp client that behaves like a small editor, driving ``python -m agent_lsp lsp`` in a subprocess.

The client keeps its own copies of open documents, applies ``workspace/applyEdit`` to them (refusing a
stale version like a real editor would), answers permission questions as a test tells it to, and records
every agent/update, progress report and message.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import uuid
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.protocol.json_rpc import JsonRPCRequestMessage
from pytest_lsp import LanguageClient
from pytest_lsp.client import register_lsp_features

from agent_lsp.adapters.lsp.documents import path_to_uri, uri_to_path
from agent_lsp.adapters.lsp.edits import apply_text_edits, text_edits
from agent_lsp.adapters.lsp.pygls_glue import json_converter

FULL_CAPS: dict[str, Any] = {
    "workspace": {
        "applyEdit": True,
        "configuration": True,
        "workspaceEdit": {
            "documentChanges": True,
            "resourceOperations": ["create", "rename", "delete"],
            "changeAnnotationSupport": {"groupsOnLabel": True},
        },
    },
    "window": {"workDoneProgress": True, "showDocument": {"support": True}},
}


@dataclass
class ClientDoc:
    text: str
    version: int


@dataclass
class Editor:
    """The test's view of the client side."""

    client: LanguageClient
    project: Path
    docs: dict[str, ClientDoc] = field(default_factory=dict)
    updates: list[dict[str, Any]] = field(default_factory=list)
    permission_requests: list[dict[str, Any]] = field(default_factory=list)
    message_requests: list[dict[str, Any]] = field(default_factory=list)
    edits: list[dict[str, Any]] = field(default_factory=list)
    permission_answer: str | None = "proceed_once"
    permission_meta: dict[str, Any] | None = None  # e.g. {"modifiedContent": ...}: the user edited the proposal
    action_answer: str | None = "Allow once"
    # Called before the client answers a permission question (e.g. to type into a buffer meanwhile).
    before_answer: Callable[[], None] | None = None
    # Called before the client applies an edit (e.g. to move the document's version like a racing keystroke).
    before_apply: Callable[[], None] | None = None
    on_update: Callable[[dict[str, Any]], None] | None = None
    # False: like vim-lsp, report an applied edit only with the next didChange (see send_late_change).
    report_applied_edits: bool = True
    # Set: every workspace/applyEdit is refused with this failureReason (the user declined it in a preview).
    refuse_edits: str | None = None
    # Set: window/showMessageRequest answers only once the test sets it (a user slow to answer).
    answer_gate: asyncio.Event | None = None
    # agent/elicit (a client advertising experimental.agent.elicitation): the requests, and the answer given.
    elicit_requests: list[dict[str, Any]] = field(default_factory=list)
    elicit_answer: dict[str, Any] = field(default_factory=lambda: {"action": "cancel"})
    told: dict[str, str] = field(default_factory=dict)  # uri → the text the server was last told

    async def request(self, method: str, params: Any) -> Any:
        return await self.client.protocol.send_request_async(method, params)

    async def wait_update(self, session_id: str, kind: str, wait_s: float = 20) -> dict[str, Any]:
        """The first ``agent/update`` of ``kind`` for the session (waiting for it if it has not come yet)."""
        async with asyncio.timeout(wait_s):
            while True:
                for sent in self.updates:
                    if sent["sessionId"] == session_id and sent["update"]["sessionUpdate"] == kind:
                        return dict(sent["update"])
                await asyncio.sleep(0.02)

    async def raw_request(self, method: str, params: Any) -> Any:
        """A request whose answer stays plain JSON (lsprotocol's Command|CodeAction hook mistakes code actions
        that carry a command for commands)."""
        protocol = self.client.protocol
        msg_id = f"raw-{uuid.uuid4().hex}"
        future: Future[Any] = Future()
        protocol._request_futures[msg_id] = future
        protocol._result_types[msg_id] = None
        protocol._send_data(JsonRPCRequestMessage(id=msg_id, method=method, jsonrpc="2.0", params=params))
        return await asyncio.wrap_future(future)

    def notify(self, method: str, params: Any) -> None:
        self.client.protocol.notify(method, params)

    def open(self, path: Path, text: str | None = None) -> str:
        uri = path_to_uri(path)
        content = path.read_text() if text is None else text
        self.docs[uri] = ClientDoc(content, 1)
        self.told[uri] = content
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, content))
        )
        return uri

    def send_late_change(self, uri: str) -> None:
        """What vim-lsp does at the next keystroke: one didChange taking the server's copy (as last told)
        to the buffer's text, as ranged changes."""
        doc = self.docs[uri]
        before = self.told[uri]
        if before == doc.text:
            return
        doc.version += 1
        edits = sorted(
            text_edits(before, doc.text),
            key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]),
            reverse=True,
        )
        changes = [{"range": e["range"], "text": e["newText"]} for e in edits]
        params = {"textDocument": {"uri": uri, "version": doc.version}, "contentChanges": changes}
        converter = self.client.protocol._converter
        self.client.text_document_did_change(converter.structure(params, types.DidChangeTextDocumentParams))
        self.told[uri] = doc.text

    def type_into(self, uri: str, new_text: str, *, tell_server: bool = True) -> None:
        """The user edits a buffer (a full-text change)."""
        doc = self.docs[uri]
        doc.text, doc.version = new_text, doc.version + 1
        if tell_server:
            self.told[uri] = new_text
            self.client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    types.VersionedTextDocumentIdentifier(doc.version, uri),
                    [types.TextDocumentContentChangeWholeDocument(new_text)],
                )
            )

    async def new_session(self, **params: Any) -> str:
        result = await self.request("agent/newSession", {"cwd": str(self.project), **params})
        session_id: str = result["sessionId"]
        return session_id

    def kinds(self) -> list[str]:
        return [u["update"]["sessionUpdate"] for u in self.updates]

    def messages(self) -> str:
        return "".join(
            u["update"]["content"]["text"]
            for u in self.updates
            if u["update"]["sessionUpdate"] == "agent_message_chunk"
        )

    def apply(self, params: types.ApplyWorkspaceEditParams) -> dict[str, Any]:
        edit = self.client.protocol._converter.unstructure(params.edit)
        self.edits.append(edit)
        if self.before_apply is not None:
            self.before_apply()
        if self.refuse_edits is not None:
            return {"applied": False, "failureReason": self.refuse_edits}
        changes = edit.get("documentChanges") or [
            {"textDocument": {"uri": uri, "version": None}, "edits": edits}
            for uri, edits in (edit.get("changes") or {}).items()
        ]
        for change in changes:  # a real editor checks every document before touching any
            if "textDocument" in change:
                uri, version = change["textDocument"]["uri"], change["textDocument"].get("version")
                if uri in self.docs and version is not None and self.docs[uri].version != version:
                    return {"applied": False, "failureReason": f"{uri} is at version {self.docs[uri].version}"}
        for change in changes:
            if change.get("kind") == "create":
                path = uri_to_path(change["uri"])
                assert path is not None
                if path.exists():
                    return {"applied": False, "failureReason": "file exists"}
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text("")
                continue
            uri = change["textDocument"]["uri"]
            doc = self.docs.get(uri)
            if doc is None:  # not open: edit the file and save it, as an editor with auto-save would
                path = uri_to_path(uri)
                assert path is not None
                path.write_text(apply_text_edits(path.read_text(), change["edits"]))
                continue
            doc.text = apply_text_edits(doc.text, change["edits"])
            doc.version += 1
            if not self.report_applied_edits:
                continue  # the buffer's version moved, but the server is not told (yet)
            self.told[uri] = doc.text
            # Tell the server incrementally, last edit first, so each range is still valid when applied.
            ordered = sorted(
                change["edits"],
                key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]),
                reverse=True,
            )
            converter = self.client.protocol._converter
            changes = [{"range": e["range"], "text": e["newText"]} for e in ordered]
            params = {"textDocument": {"uri": uri, "version": doc.version}, "contentChanges": changes}
            self.client.text_document_did_change(converter.structure(params, types.DidChangeTextDocumentParams))
        return {"applied": True}


def server_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE"))}
    env.update(
        {
            "HOME": str(home / "home"),
            "AGENT_LSP_HOME": str(home / "state"),
            "AGENT_LSP_TRUST_WORKSPACE": "true",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    (home / "home").mkdir(parents=True, exist_ok=True)
    return env


async def start_editor(
    tmp_path: Path,
    script: list[dict[str, Any]],
    *,
    capabilities: dict[str, Any] | None = None,
    experimental: dict[str, Any] | None = None,
    init_options: Any = None,
    extra_args: tuple[str, ...] = (),
    replay: bool = True,
    extra_env: dict[str, str] | None = None,
    action_answer: str | None = "Allow once",  # how window/showMessageRequest is answered from the start
) -> Editor:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps(line) + "\n" for line in script))
    client = LanguageClient(converter_factory=json_converter)
    register_lsp_features(client)
    editor = Editor(client, project.resolve(), action_answer=action_answer)

    @client.feature("agent/update")
    def on_update(params: Any) -> None:
        editor.updates.append(params)
        if editor.on_update is not None:
            editor.on_update(params)

    @client.feature("agent/requestPermission")
    def on_permission(params: Any) -> Any:
        editor.permission_requests.append(params)
        if editor.before_answer is not None:
            editor.before_answer()
        if editor.permission_answer is None:
            return {"outcome": {"outcome": "cancelled"}}
        if editor.permission_answer == "fail":
            raise RuntimeError("the permission dialog crashed")
        answer: dict[str, Any] = {"outcome": {"outcome": "selected", "optionId": editor.permission_answer}}
        if editor.permission_meta is not None:
            answer["_meta"] = editor.permission_meta
        return answer

    @client.feature("agent/elicit")
    def on_elicit(params: Any) -> Any:
        editor.elicit_requests.append(params)
        return editor.elicit_answer

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    async def on_message_request(params: types.ShowMessageRequestParams) -> Any:
        editor.message_requests.append(client.protocol._converter.unstructure(params))
        if editor.answer_gate is not None:
            await editor.answer_gate.wait()
        if editor.before_answer is not None:
            editor.before_answer()
        return None if editor.action_answer is None else types.MessageActionItem(editor.action_answer)

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def on_apply(params: types.ApplyWorkspaceEditParams) -> Any:
        return editor.apply(params)

    await client.start_io(
        sys.executable,
        "-m",
        "agent_lsp",
        "lsp",
        *(("--fake-responses", str(responses)) if replay else ()),
        *extra_args,
        env={**server_env(tmp_path), **(extra_env or {})},
        cwd=str(project),
    )
    caps = dict(FULL_CAPS if capabilities is None else capabilities)
    if experimental is not None:
        caps["experimental"] = experimental
    converter = client.protocol._converter
    uri = path_to_uri(project)
    await client.initialize_session(
        types.InitializeParams(
            capabilities=converter.structure(caps, types.ClientCapabilities),
            root_uri=uri,
            workspace_folders=[types.WorkspaceFolder(uri, "project")],
            initialization_options=init_options,
        )
    )
    return editor


@pytest_asyncio.fixture
async def editors() -> AsyncIterator[list[Editor]]:
    """Started editors are shut down (and their servers reaped) after the test."""
    started: list[Editor] = []
    yield started
    for editor in started:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(editor.client.shutdown_session(), 10)
        await editor.client.stop()


@pytest.fixture
def launch(tmp_path: Path, editors: list[Editor]) -> Callable[..., Any]:
    async def go(script: list[dict[str, Any]], **kwargs: Any) -> Editor:
        editor = await start_editor(tmp_path, script, **kwargs)
        editors.append(editor)
        return editor

    return go


async def until(predicate: Callable[[], bool], limit: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)
