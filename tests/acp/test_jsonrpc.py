"""The JSON-RPC layer on real OS pipes: dispatch, error codes, $/cancel_request, outgoing requests, big frames."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agent_lsp.adapters.acp.jsonrpc import Connection, RequestContext, RpcError
from agent_lsp.adapters.acp.stdio import PipeSource, PipeWriter
from agent_lsp.adapters.wire import CODES


class Peer:
    """The far end of the pipes: writes frames to the connection and reads what it sends."""

    def __init__(self, write_fd: int, reader: asyncio.StreamReader) -> None:
        self.write_fd = write_fd
        self.reader = reader

    async def send(self, frame: dict[str, Any] | bytes) -> None:
        data = frame if isinstance(frame, bytes) else json.dumps(frame).encode() + b"\n"
        # From a thread: a big frame fills the pipe, and the loop must keep running to drain it.
        await asyncio.to_thread(_write_all, self.write_fd, data)

    async def recv(self) -> dict[str, Any]:
        line = await asyncio.wait_for(self.reader.readline(), 5)
        assert line, "connection closed"
        message: dict[str, Any] = json.loads(line)
        return message


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class Handlers:
    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.notes: list[tuple[str, Any]] = []

    def dispatch(self, method: str, params: Any, ctx: RequestContext) -> Any:
        if method == "echo":
            return self._echo(params)
        if method == "slow":
            return self._slow()
        if method == "soft":
            return self._soft(ctx)
        if method == "bad":
            return self._bad()
        if method == "boom":
            return self._boom()
        raise RpcError(-32601, f"Method not found: {method}")

    async def _echo(self, params: Any) -> Any:
        return params

    async def _slow(self) -> Any:
        await asyncio.sleep(30)

    async def _soft(self, ctx: RequestContext) -> Any:
        ctx.on_cancel = self.gate.set
        await self.gate.wait()
        return {"stopped": "politely"}

    async def _bad(self) -> Any:
        raise RpcError.invalid_params("thing.size", "must be positive")

    async def _boom(self) -> Any:
        raise ValueError("kaboom")

    def notification(self, method: str, params: Any) -> None:
        self.notes.append((method, params))


@pytest.fixture
async def wired() -> AsyncIterator[tuple[Connection, Peer, Handlers, asyncio.Task[None]]]:
    to_agent_r, to_agent_w = os.pipe()
    to_peer_r, to_peer_w = os.pipe()
    source, writer = PipeSource(to_agent_r), PipeWriter(to_peer_w)
    await source.start()
    await writer.start()
    handlers = Handlers()
    conn = Connection(source, writer)
    serving = asyncio.ensure_future(conn.serve(handlers))
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 26)
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(to_peer_r, "rb", buffering=0)
    )
    peer = Peer(to_agent_w, reader)
    try:
        yield conn, peer, handlers, serving
    finally:
        with contextlib.suppress(OSError):
            os.close(to_agent_w)
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(serving, 5)
        writer.close()
        transport.close()
        for fd in (to_agent_r, to_peer_w):
            with contextlib.suppress(OSError):
                os.close(fd)


async def test_requests_errors_and_notifications(wired: Any) -> None:
    _conn, peer, handlers, _ = wired
    await peer.send({"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"a": [1, "ü"]}})
    assert await peer.recv() == {"jsonrpc": "2.0", "id": 1, "result": {"a": [1, "ü"]}}
    await peer.send({"jsonrpc": "2.0", "id": "x", "method": "bad", "params": {}})
    bad = await peer.recv()
    assert bad["id"] == "x" and bad["error"]["code"] == -32602 and "thing.size" in bad["error"]["message"]
    await peer.send({"jsonrpc": "2.0", "id": 2, "method": "boom"})
    boom = await peer.recv()
    assert boom["error"]["code"] == -32603 and "kaboom" in boom["error"]["message"]
    await peer.send({"jsonrpc": "2.0", "id": 3, "method": "nope"})
    assert (await peer.recv())["error"]["code"] == -32601
    await peer.send(b"\xff\xfe not utf8\n")
    assert (await peer.recv())["error"]["code"] == -32700
    await peer.send({"jsonrpc": "2.0", "id": True, "method": "echo"})
    assert (await peer.recv())["error"]["code"] == -32600
    await peer.send({"jsonrpc": "2.0", "id": 9})
    assert (await peer.recv())["error"] == {"code": -32600, "message": "Invalid request: no method"}
    await peer.send({"jsonrpc": "2.0", "id": 777, "result": {}})  # an answer to nothing we asked: ignored
    await peer.send({"jsonrpc": "2.0", "method": "note", "params": [1]})
    big = "x" * 300_000
    await peer.send({"jsonrpc": "2.0", "id": 4, "method": "echo", "params": {"big": big}})
    assert (await peer.recv())["result"]["big"] == big
    assert handlers.notes == [("note", [1])]


async def test_cancel_request_answers_request_cancelled(wired: Any) -> None:
    _conn, peer, _handlers, _ = wired
    await peer.send({"jsonrpc": "2.0", "id": 1, "method": "slow"})
    await peer.send({"jsonrpc": "2.0", "id": 1, "method": "echo"})
    duplicate = await peer.recv()
    assert duplicate["id"] == 1 and duplicate["error"]["code"] == -32600
    await peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 1}})
    assert await peer.recv() == {"jsonrpc": "2.0", "id": 1, "error": {"code": -32800, "message": "Request cancelled"}}
    # A handler that knows how to stop answers normally instead.
    await peer.send({"jsonrpc": "2.0", "id": 2, "method": "soft"})
    await asyncio.sleep(0.05)
    await peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 2}})
    assert await peer.recv() == {"jsonrpc": "2.0", "id": 2, "result": {"stopped": "politely"}}


async def test_outgoing_requests(wired: Any) -> None:
    conn, peer, _, serving = wired
    asked = asyncio.ensure_future(conn.request("fs/read_text_file", {"path": "/x"}))
    request = await peer.recv()
    assert request["method"] == "fs/read_text_file" and request["params"] == {"path": "/x"}
    await peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"content": "hi"}})
    assert await asyncio.wait_for(asked, 5) == {"content": "hi"}

    failing = asyncio.ensure_future(conn.request("fs/write_text_file", {}))
    request = await peer.recv()
    await peer.send(
        {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32002, "message": "gone", "data": {"p": 1}}}
    )
    with pytest.raises(RpcError) as info:
        await asyncio.wait_for(failing, 5)
    assert (info.value.code, info.value.message, info.value.data) == (-32002, "gone", {"p": 1})

    abandoned = asyncio.ensure_future(conn.request("session/request_permission", {}))
    request = await peer.recv()
    abandoned.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await abandoned
    await peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {}})  # too late: ignored

    pending = asyncio.ensure_future(conn.request("terminal/output", {}))
    await peer.recv()
    os.close(peer.write_fd)  # the client goes away
    with pytest.raises(ConnectionError):
        await asyncio.wait_for(pending, 5)
    await asyncio.wait_for(serving, 5)
    assert conn.closed


async def test_end_of_input_answers_every_request_already_read(wired: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that writes its requests and closes its side still gets one answer per id: quick handlers
    finish, long ones are cancelled after the grace period and answered as cancelled."""
    from agent_lsp.adapters.acp import jsonrpc

    monkeypatch.setattr(jsonrpc, "END_OF_INPUT_GRACE_S", 0.3)
    conn, peer, _handlers, serving = wired
    await peer.send(b'{"a":' * 3000 + b"\n")
    await peer.send({"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"x": 1}})
    await peer.send({"jsonrpc": "2.0", "id": 2, "method": "slow"})
    os.close(peer.write_fd)  # end of input right behind the requests
    answers = [await peer.recv() for _ in range(3)]
    await asyncio.wait_for(serving, 5)
    assert answers[0] == {"jsonrpc": "2.0", "id": None, "error": answers[0]["error"]}
    assert answers[0]["error"]["code"] == -32700
    by_id = {a["id"]: a for a in answers[1:]}
    assert by_id[1]["result"] == {"x": 1}
    assert by_id[2]["error"]["code"] == CODES["cancelled"] == -32800
    assert conn.closed
    with pytest.raises(ConnectionError):
        await conn.request("fs/read_text_file", {})
