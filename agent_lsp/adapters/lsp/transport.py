"""Our stdio loop in front of pygls: every frame is checked before pygls sees it, every request is answered.

pygls 2.1 decodes and types a message inside its own read loop; when that fails (params ``5`` for
``textDocument/codeAction``, a batch, a bad id) it only reports the error with ``window/showMessage`` and the
request is never answered. So frames are read here (``framing.FrameReader``), decoded and checked
(``adapters.wire``) and typed with the server's own converter; a frame that fails any step is answered
with the right JSON-RPC error (notifications never are); only sound, typed messages reach
``protocol.handle_message``. Answers to our own requests go to the ``Outbox`` (pygls never sees them), and a
``$/cancelRequest`` for a running prompt ends its turn instead (the turn answers ``stopReason: cancelled``).
This is the one place that stands in for pygls's ``start_io``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import CancelledError
from typing import Any, BinaryIO

from cattrs import Converter
from cattrs.errors import BaseValidationError
from pygls.protocol import JsonRPCProtocol
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage

from agent_lsp.adapters import wire
from agent_lsp.adapters.lsp.framing import FrameReader
from agent_lsp.adapters.lsp.outbox import Outbox, frame

log = logging.getLogger(__name__)

EXIT = "exit"
SETTLE_POLL_S = 0.02
QUEUED_FRAMES = 16  # read ahead of the handler at most this many frames
SHUTDOWN_WAIT_S = 5.0  # how long shutdown waits for the requests sent before it
SHUTDOWN = "shutdown"
INITIALIZE = "initialize"
CANCEL = "$/cancelRequest"
Item = bytes | dict[str, Any] | wire.Rejection


class FrameWriter:
    """stdout, behind ordering.AnswersFirst. Whole frames go out under a lock (several threads write); once closed (by
    ``exit``) or broken (the client went away) writes are dropped: pygls reports a failed write by writing
    again, and at exit that cascade fills stderr with tracebacks."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._closed = False
        self._lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self._lock:
            if self._closed:
                return
            try:
                self._stream.write(data)
                self._stream.flush()
            except (OSError, ValueError):
                log.info("stdout is gone; dropping what is still to be sent")
                self._closed = True

    def close(self) -> None:
        with self._lock:
            self._closed = True
            with contextlib.suppress(OSError, ValueError):
                self._stream.close()


class Gate:
    """Checks, types and routes one message at a time; answers what cannot be handled."""

    def __init__(
        self,
        protocol: JsonRPCProtocol,
        converter: Converter,
        write: Callable[[bytes], None],
        *,
        outbox: Outbox,
        in_flight: set[Any] | None = None,
        cancel: Callable[[Any], bool] | None = None,
        before_exit: Callable[[], Awaitable[None]] | None = None,
        initialize: Callable[[dict[str, Any]], None] | None = None,
        at_end: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.protocol = protocol
        self.converter = converter
        self.write = write
        self.outbox = outbox  # our own requests still waiting for the client's answer
        self.in_flight = in_flight if in_flight is not None else set()  # requests pygls has not answered yet
        self.cancel = cancel  # True when it took a $/cancelRequest (a running prompt's)
        self.before_exit = before_exit
        # Told the ``initialize`` params as the client sent them, before pygls handles the request: turning
        # pygls's typed ClientCapabilities back into JSON would first generate cattrs hooks for ~120 classes
        # (~25 ms on the way to the first session).
        self.initialize = initialize
        # What ``shutdown`` does (close the sessions), for an end without one: end of input, or SIGTERM.
        self.at_end = at_end
        self.shutting_down = False

    def feed(self, item: Item) -> None:
        message = self.accept(item)
        if message is not None:
            self.route(message)

    def accept(self, item: Item) -> dict[str, Any] | None:
        """The message in a frame, or None once a bad frame is dealt with."""
        message = wire.decode(item) if isinstance(item, bytes) else item
        if isinstance(message, dict):
            message = wire.check(message)
        if isinstance(message, wire.Rejection):
            self.reject(message)
            return None
        return message

    def route(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method is None:
            self._answer_from_client(message)
            return
        rid = message.get("id")
        request = "id" in message
        if self.shutting_down and method != EXIT:
            if request:
                self.reject(wire.Rejection(rid, wire.INVALID_REQUEST, "Invalid request: the server is shutting down"))
            return
        if request and rid in self.in_flight:
            self.reject(wire.Rejection(rid, wire.INVALID_REQUEST, f"Invalid request: id {rid!r} is already in use"))
            return
        if method == CANCEL and not request and self.cancel is not None:
            params = message.get("params")
            if isinstance(params, dict) and self.cancel(params.get("id")):
                return
        typed = self._typed(message, request)
        if typed is None:
            return
        if request and method == SHUTDOWN:
            self.shutting_down = True
        if request:
            self.in_flight.add(rid)
        try:
            if request and method == INITIALIZE and self.initialize is not None:
                params = message.get("params")
                self.initialize(params if isinstance(params, dict) else {})
            self.protocol.handle_message(typed)
        except Exception as exc:  # pygls answers its handlers' failures itself; this is a failure around them
            log.exception("handling %s failed", method)
            if request and rid in self.in_flight:
                self.in_flight.discard(rid)
                self.reject(wire.Rejection(rid, wire.INTERNAL_ERROR, f"Internal error: {exc}"))

    def _typed(self, message: dict[str, Any], request: bool) -> Any:
        """The lsprotocol (or plain JSON-RPC) object pygls expects, or None once the problem is dealt with."""
        method = message["method"]
        rid = message.get("id")
        kind = self.protocol.get_message_type(method) or (JsonRPCRequestMessage if request else JsonRPCNotification)
        if kind in (JsonRPCRequestMessage, JsonRPCNotification):
            message = {"params": None, **message}  # plain JSON-RPC messages always carry params, maybe null
        try:
            typed = self.converter.structure(message, kind)
        except Exception as exc:
            text = f"Invalid params for {method}: {_why(exc)}"
            self.reject(wire.Rejection(rid, wire.INVALID_PARAMS, text, answer=request))
            return None
        if request and not hasattr(typed, "id"):
            self.reject(wire.Rejection(rid, wire.METHOD_NOT_FOUND, f"Method not found: {method} is a notification"))
            return None
        return typed

    async def settle(self, wait_s: float) -> None:
        """Give the requests already handed to pygls up to ``wait_s`` to be answered (pygls cancels whatever
        is still running once shutdown completes; what arrived before shutdown deserves its real answer)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        while self.in_flight and loop.time() < deadline:  # noqa: ASYNC110 - answers leave from pygls's callbacks
            await asyncio.sleep(SETTLE_POLL_S)

    def _answer_from_client(self, message: dict[str, Any]) -> None:
        if not self.outbox.answer(message):
            log.info("ignoring an answer to unknown request %r", message.get("id"))  # never a request of ours

    def reject(self, rejection: wire.Rejection) -> None:
        log.warning("%s%s", rejection.message, "" if rejection.answer else " (a notification: not answered)")
        if rejection.answer:
            self.write(frame({"jsonrpc": "2.0", "id": rejection.id, "error": _error(rejection)}))


def _error(rejection: wire.Rejection) -> dict[str, Any]:
    return {"code": rejection.code, "message": rejection.message}


def _why(exc: Exception) -> str:
    if isinstance(exc, BaseValidationError):
        from cattrs import transform_error

        problems = transform_error(exc, path="$")
        return "; ".join(problems[:3]) or str(exc)
    return str(exc) or type(exc).__name__


def serve(gate: Gate, reader: FrameReader, first: Item | None = None) -> int:
    """Run the loop until end of input or ``exit``; returns the exit code."""
    try:
        asyncio.run(_serve(gate, reader, first))
    except SystemExit as done:  # pygls's exit handler ends the process this way
        return 0 if gate.shutting_down else done.code if isinstance(done.code, int) else 1
    except (KeyboardInterrupt, BrokenPipeError):
        pass
    except asyncio.CancelledError:  # SIGTERM: the sessions were closed on the way out
        from agent_lsp.stopping import SIGTERM_EXIT

        return SIGTERM_EXIT
    return 0


async def _serve(gate: Gate, reader: FrameReader, first: Item | None) -> None:
    from agent_lsp.stopping import cancel_on_sigterm

    cancel_on_sigterm()
    try:
        await _pump_frames(gate, reader, first)
    finally:
        if gate.at_end is not None and not gate.shutting_down:
            await gate.at_end()


async def _pump_frames(gate: Gate, reader: FrameReader, first: Item | None) -> None:
    loop = asyncio.get_running_loop()
    # Bounded: a client that writes faster than we handle waits on its pipe instead of filling our memory.
    queue: asyncio.Queue[Item | None] = asyncio.Queue(maxsize=QUEUED_FRAMES)

    def pump() -> None:
        # A daemon thread: a blocking read must never keep the process alive after exit.
        item: Item | None = None
        try:
            while (item := reader.next()) is not None:
                asyncio.run_coroutine_threadsafe(queue.put(item), loop).result()
        except (OSError, ValueError):
            log.debug("stdin failed", exc_info=True)
        except (RuntimeError, CancelledError):  # the loop is gone (the server exited)
            return
        with contextlib.suppress(RuntimeError, CancelledError):
            asyncio.run_coroutine_threadsafe(queue.put(None), loop).result()

    if first is not None:
        gate.feed(first)
    threading.Thread(target=pump, name="lsp-stdin", daemon=True).start()
    while (item := await queue.get()) is not None:
        message = gate.accept(item)
        if message is None:
            continue
        if message.get("method") == SHUTDOWN and "id" in message and not gate.shutting_down:
            await gate.settle(SHUTDOWN_WAIT_S)
        if message.get("method") == EXIT and gate.shutting_down and gate.before_exit is not None:
            # pygls cancels whatever is pending when shutdown completes, an exit queued behind it included.
            await gate.before_exit()
        gate.route(message)
