"""Newline-delimited JSON-RPC 2.0 over asyncio byte streams: the ACP wire layer (stdlib only, quick to import).

One ``Connection`` reads frames, runs each incoming request in its own task, answers it, resolves the
futures of our own outgoing requests, and honours ``$/cancel_request``. Every frame is written at once,
in the order it was produced, so updates sent before a response always reach the client before it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from agent_lsp.adapters import wire
from agent_lsp.adapters.acp.framing import LineFrames
from agent_lsp.adapters.coalesce import TextMerger
from agent_lsp.adapters.wire import CODES

if TYPE_CHECKING:
    from agent_lsp.vocabulary import ErrorMeaning

log = logging.getLogger(__name__)
# After the client closes our input, requests it already sent may still finish and be answered for this long
# (a client that closed its side can still read ours); what is left then is cancelled and answered as such.
END_OF_INPUT_GRACE_S = 5.0

CANCEL_REQUEST = "$/cancel_request"
RequestId = int | str | None


class RpcError(Exception):
    """An error answer: raised by handlers to answer a request, and by ``request`` when the peer answered one."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    @classmethod
    def of(cls, meaning: ErrorMeaning, message: str, data: Any = None) -> RpcError:
        """An error by what it means (``vocabulary.ErrorMeaning``); ``wire.CODES`` picks the code."""
        return cls(CODES[meaning], message, data)

    @classmethod
    def invalid_params(cls, where: str, why: str) -> RpcError:
        """-32602 naming the offending field (``where`` is a path such as ``prompt[2].data``)."""
        return cls.of("invalid_params", f"Invalid params: {where} {why}", {"field": where})


@dataclass
class RequestContext:
    """Per incoming request. A handler may set ``on_cancel`` to handle ``$/cancel_request`` itself (and then
    answer normally); otherwise the handler's task is cancelled and -32800 is answered. ``after_response``
    callbacks run right after the answer is written (for notifications the client can only use then)."""

    request_id: RequestId
    method: str
    on_cancel: Callable[[], None] | None = None
    after_response: list[Callable[[], None]] = field(default_factory=list)
    cancelled: bool = False


class Handler(Protocol):
    """What serves the requests and notifications of one connection (the ACP agent)."""

    def dispatch(self, method: str, params: Any, ctx: RequestContext) -> Awaitable[Any]:
        """Called synchronously as each request arrives; returns the awaitable producing the result (or raises
        RpcError)."""
        ...

    def notification(self, method: str, params: Any) -> None: ...


class FrameWriter(Protocol):
    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...


class ByteSource(Protocol):
    async def read(self, n: int) -> bytes: ...


class PendingRequests:
    """Our requests awaiting the client's answer: each gets a fresh id and a future the answer resolves."""

    def __init__(self) -> None:
        self._next_id = 0
        self._futures: dict[int, asyncio.Future[Any]] = {}

    def open(self) -> tuple[int, asyncio.Future[Any]]:
        self._next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._futures[self._next_id] = future
        return self._next_id, future

    def forget(self, rid: int) -> None:
        """The asker stopped waiting (answered, timed out or cancelled): a late answer is ignored."""
        self._futures.pop(rid, None)

    def answer(self, rid: RequestId, message: dict[str, Any]) -> None:
        """The client's answer to one of ours; an error answer becomes an RpcError raised to the asker."""
        future = self._futures.get(rid) if isinstance(rid, int) else None
        if future is None or future.done():
            log.debug("answer to unknown or abandoned request %r", rid)
            return
        error = message.get("error")
        if error is not None:
            code = error.get("code") if isinstance(error, dict) else None
            text = error.get("message") if isinstance(error, dict) else None
            data = error.get("data") if isinstance(error, dict) else None
            future.set_exception(
                RpcError(code if isinstance(code, int) else CODES["internal"], str(text or "unknown error"), data)
            )
        else:
            future.set_result(message.get("result"))

    def fail_all(self, why: str) -> None:
        """Nothing can be answered any more: every wait fails, so the handlers waiting finish."""
        for future in self._futures.values():
            if not future.done():
                future.set_exception(ConnectionError(why))


class Connection:
    """Built on its byte streams first, so the agent can be built with it; ``serve(agent)`` then runs it."""

    def __init__(self, source: ByteSource, writer: FrameWriter, *, max_frame: int | None = None) -> None:
        self._source = source
        self._writer = writer
        self._handler: Handler | None = None
        self._frames = LineFrames(max_frame or wire.max_frame_bytes(), self._reject)
        self._outgoing = PendingRequests()
        self._incoming: dict[RequestId, tuple[asyncio.Task[None], RequestContext]] = {}
        self._closed = False
        self._input_ended = False  # the client can send nothing more, so it can answer nothing more
        self.on_frame_sent: Callable[[dict[str, Any]], None] | None = None  # tests and benchmarks observe here
        self._merger = TextMerger(
            lambda method, params: self._write({"jsonrpc": "2.0", "method": method, "params": params})
        )

    @property
    def closed(self) -> bool:
        return self._closed

    # ---- sending ----

    def send(self, message: dict[str, Any]) -> None:
        """Write one frame now. Frames go out in call order; nothing is written after the connection closed."""
        self._merger.flush()  # held text goes first: never reordered, never behind this frame
        self._write(message)

    def notify_text(self, method: str, params: Any) -> None:
        """A streamed-text notification, merged with the next ones within a frame (adapters/coalesce.py)."""
        if not self._closed:
            self._merger.offer(method, params)

    def _write(self, message: dict[str, Any]) -> None:
        if self._closed:
            return
        # A lone surrogate (JSON can carry one, UTF-8 cannot) only ever sits inside a string, where its
        # backslash form is the JSON escape for it.
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        data = text.encode("utf-8", errors="backslashreplace") + b"\n"
        self._writer.write(data)
        if self.on_frame_sent is not None:
            self.on_frame_sent(message)

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def drain(self) -> None:
        if not self._closed:
            await self._writer.drain()

    async def request(self, method: str, params: Any, *, timeout: float | None = None) -> Any:  # noqa: ASYNC109
        """Send a request to the peer and wait for its answer; an error answer raises RpcError.

        Cancelling the awaiting task forgets the request (a late answer is ignored)."""
        if self._closed or self._input_ended:
            raise ConnectionError("the client connection is closed")
        rid, future = self._outgoing.open()
        try:
            self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
            if timeout is None:
                return await future
            return await asyncio.wait_for(future, timeout)
        finally:
            self._outgoing.forget(rid)

    # ---- receiving ----

    async def serve(self, handler: Handler) -> None:
        """Read and hand frames to ``handler`` until end of input; then finish (or cancel and answer) what is
        still running."""
        self._handler = handler
        try:
            while True:
                line = self._frames.next_line()
                if line is None:
                    chunk = await self._source.read(1 << 16)
                    if not chunk:
                        last = self._frames.last()
                        if last is not None:
                            self._handle_line(last)
                        break
                    self._frames.feed(chunk)
                    continue
                self._handle_line(line)
        finally:
            await self._end_of_input()

    async def _end_of_input(self) -> None:
        self._input_ended = True
        self._outgoing.fail_all("the client closed the connection")
        running = [task for task, _ in self._incoming.values()]
        if running:
            await asyncio.wait(running, timeout=END_OF_INPUT_GRACE_S)
        left = list(self._incoming.values())
        for task, ctx in left:
            ctx.cancelled = True  # answered "Request cancelled" by _run
            task.cancel()
        for task, _ in left:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._merger.flush()
        self._closed = True

    def _handle_line(self, line: bytes) -> None:
        if not line.strip():
            return
        message = wire.decode(line)
        if isinstance(message, wire.Rejection):
            self._reject(message, size=len(line))
            return
        self._handle_message(message)

    def _reject(self, rejection: wire.Rejection, *, size: int | None = None) -> None:
        log.warning("bad frame%s: %s", f" ({size} bytes)" if size is not None else "", rejection.message)
        if rejection.answer:
            self._send_error(rejection.id, RpcError(rejection.code, rejection.message))

    def _handle_message(self, message: dict[str, Any]) -> None:
        try:
            self._route(message)
        except Exception as exc:  # a bug: the request still gets its one answer, the connection lives on
            log.exception("handling %s failed", message.get("method", "an answer"))
            if "id" in message and "method" in message and message["id"] not in self._incoming:
                self._send_error(message["id"], RpcError.of("internal", f"Internal error: {exc}"))

    def _route(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        rid = message.get("id")
        if not isinstance(method, str):
            self._outgoing.answer(rid, message)
            return
        params = message.get("params")
        if "id" not in message:
            self._handle_notification(method, params)
            return
        if rid in self._incoming:
            self._send_error(rid, RpcError.of("invalid_request", f"Invalid request: id {rid!r} is already in use"))
            return
        ctx = RequestContext(rid, method)
        assert self._handler is not None, "frames are read only while serving"
        try:
            awaitable = self._handler.dispatch(method, params, ctx)
        except RpcError as exc:
            self._send_error(rid, exc)
            return
        task = asyncio.ensure_future(self._run(awaitable, ctx))
        self._incoming[rid] = (task, ctx)

    async def _run(self, awaitable: Awaitable[Any], ctx: RequestContext) -> None:
        try:
            try:
                result = await awaitable
            except RpcError as exc:
                self._send_error(ctx.request_id, exc)
                return
            except asyncio.CancelledError:
                if ctx.cancelled and not self._closed:
                    self._send_error(ctx.request_id, RpcError.of("cancelled", "Request cancelled"))
                raise
            except Exception as exc:
                log.exception("handler for %s failed", ctx.method)
                self._send_error(ctx.request_id, RpcError.of("internal", f"Internal error: {exc}"))
                return
            self.send({"jsonrpc": "2.0", "id": ctx.request_id, "result": result if result is not None else {}})
            for callback in ctx.after_response:
                try:
                    callback()
                except Exception:
                    log.exception("after-response callback of %s failed", ctx.method)
        finally:
            self._incoming.pop(ctx.request_id, None)

    def _handle_notification(self, method: str, params: Any) -> None:
        if method == CANCEL_REQUEST:
            rid = params.get("requestId") if isinstance(params, dict) else None
            entry = self._incoming.get(rid) if wire.valid_id(rid) else None
            if entry is None:
                return  # already answered: nothing to do
            task, ctx = entry
            ctx.cancelled = True
            if ctx.on_cancel is not None:
                ctx.on_cancel()
            else:
                task.cancel()
            return
        assert self._handler is not None, "frames are read only while serving"
        try:
            self._handler.notification(method, params)
        except RpcError as exc:
            log.warning("bad %s notification: %s", method, exc.message)
        except Exception:
            log.exception("notification %s failed", method)

    def _send_error(self, rid: RequestId, error: RpcError) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "error": error.to_json()})
