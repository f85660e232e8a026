"""What pygls_glue.py relies on in pygls: each test fails when pygls changes underneath it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from lsprotocol import types
from pygls.protocol import JsonRPCRequestMessage
from pygls.workspace import Workspace

from agent_lsp.adapters.launch import LaunchOptions
from agent_lsp.adapters.lsp.capabilities import CMD_FIX
from agent_lsp.adapters.lsp.documents import DocumentStore
from agent_lsp.adapters.lsp.ordering import AnswersFirst
from agent_lsp.adapters.lsp.pygls_glue import json_converter
from agent_lsp.adapters.lsp.server import build_server


def test_unknown_methods_keep_their_params_as_json() -> None:
    message = {"jsonrpc": "2.0", "id": 1, "method": "agent/prompt", "params": {"_meta": {"a": 1}, "prompt": "hi"}}
    typed = json_converter().structure(message, JsonRPCRequestMessage)
    assert typed.params == {"_meta": {"a": 1}, "prompt": "hi"}


def test_pygls_writes_answers_as_frames_through_the_writer_it_is_given() -> None:
    frames: list[bytes] = []
    answered: list[Any] = []
    server = build_server(LaunchOptions(), AnswersFirst(frames.append, lambda: None, answered.append))
    request = {"jsonrpc": "2.0", "id": 7, "method": "textDocument/codeAction"}
    params = {
        "textDocument": {"uri": "file:///p/a.py"},
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
        "context": {
            "diagnostics": [
                {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "message": "x"}
            ]
        },
    }
    server.protocol.handle_message(server.protocol.structure_message({**request, "params": params}))
    assert answered == [7]
    (frame,) = frames
    head, _, body = frame.partition(b"\r\n\r\n")
    assert head.startswith(b"Content-Length: ") and int(head.split(b"\r\n")[0].split(b":")[1]) == len(body)
    answer = json.loads(body)
    assert answer["id"] == 7 and answer["result"][0]["command"]["command"] == CMD_FIX


def test_pygls_workspace_still_breaks_lines_where_lsp_does_not() -> None:
    """Why documents.py stays the document store: pygls splits lines at form feeds (LSP splits at \\n, \\r\\n,
    \\r only), so an edit after a form feed lands in the wrong place. When this fails, pygls follows the rule
    and its workspace can replace DocumentStore (keeping DocumentStore.applied's behaviour for vim-lsp)."""
    text, rng, insert = "a\nb\x0cc\nd\n", ((1, 3), (1, 3)), "X"
    expected = "a\nb\x0ccX\nd\n"
    workspace = Workspace(None, types.TextDocumentSyncKind.Incremental)
    workspace.put_text_document(
        types.TextDocumentItem(uri="file:///p/x.py", language_id="python", version=1, text=text)
    )
    change = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(*rng[0]), types.Position(*rng[1])), text=insert
    )
    workspace.update_text_document(types.VersionedTextDocumentIdentifier(uri="file:///p/x.py", version=2), change)
    assert workspace.get_text_document("file:///p/x.py").source != expected
    store = DocumentStore()
    store.open("file:///p/x.py", text, 1)
    json_range = {"start": {"line": 1, "character": 3}, "end": {"line": 1, "character": 3}}
    doc = store.change("file:///p/x.py", 2, [{"range": json_range, "text": insert}])
    assert doc is not None and doc.text == expected


async def test_what_a_handler_set_going_waits_for_its_answer() -> None:
    """A task the handler started, ready before pygls writes the answer, is written behind it: pygls registers
    the wrapped handler and runs it where ``protocol.msg_id`` names the request."""
    frames: list[bytes] = []
    server = build_server(LaunchOptions(), AnswersFirst(frames.append, lambda: None, lambda _id: None))

    @server.feature("test/answerThenWork")
    async def handler(params: Any) -> Any:
        asyncio.get_running_loop().call_soon(server.client.notify, "test/work", {})
        return {"ok": True}

    message = {"jsonrpc": "2.0", "id": 5, "method": "test/answerThenWork", "params": {}}
    server.protocol.handle_message(server.protocol.structure_message(message))
    for _ in range(10):
        await asyncio.sleep(0)
    bodies = [json.loads(f.partition(b"\r\n\r\n")[2]) for f in frames]
    assert [b.get("method", b.get("id")) for b in bodies] == [5, "test/work"]
