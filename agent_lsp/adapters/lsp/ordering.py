"""Answers first: once a request's answer is decided, it goes out before anything the request set going.

Every frame to stdout passes here: pygls's answers (``write``) and our own messages (``send``). A handler of a
client's request runs inside ``handling`` (server.py wraps every registered handler), which marks its context;
tasks, timers and ``to_thread`` threads it starts inherit that mark. While the handler works, what it and its
helpers send goes out at once: the answer may wait for it (a turn's updates and questions before agent/prompt's
stop reason, applyEdit before the executeCommand answer, as LSP intends). Once the handler has returned, its
answer is decided but written a moment later, from pygls's callbacks: until the answer is on the wire, what the
request set going is held, then written right behind it, in order. Eglot needs this: it waits for the answer to
``workspace/executeCommand`` synchronously, and a question read in the same chunk before that answer is lost.

pygls's answers are found by reading the frames it writes (one frame or several per write, any split), so nothing
here depends on how pygls schedules or writes them.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)


@dataclass(eq=False)
class _Request:
    id: Any
    decided: bool = False  # the handler returned (or failed): its answer is known
    answered: bool = False  # the answer is written
    held: list[bytes] = field(default_factory=list)  # what it set going since it was decided, in order


_CAUSE: contextvars.ContextVar[_Request | None] = contextvars.ContextVar("agent_lsp_request", default=None)


class AnswersFirst:
    """The one way to stdout. ``write``/``close`` make pygls's writer; ``send`` is for our own frames."""

    def __init__(self, write: Callable[[bytes], None], close: Callable[[], None], answered: Callable[[Any], None]):
        self._write = write
        self.close = close
        self._answered = answered  # told the id of every answer pygls writes
        self._open: dict[Any, _Request] = {}
        self._lock = threading.Lock()  # frames come from the loop and from worker threads
        self._scan = _AnswerScanner()

    @contextlib.contextmanager
    def handling(self, request_id: Any) -> Iterator[None]:
        """Run a handler of request ``request_id`` (None: a notification, nothing to order) in this block."""
        if request_id is None:
            yield
            return
        request = _Request(request_id)
        with self._lock:
            self._open[request_id] = request
        token = _CAUSE.set(request)
        try:
            yield
        finally:
            with self._lock:
                request.decided = True
            # What the handler itself runs from here (a sync handler's caller) is not set going by it.
            _CAUSE.reset(token)

    def send(self, data: bytes) -> None:
        """One whole frame of ours: now, or behind the answer of the request that set it going."""
        request = _CAUSE.get()
        with self._lock:
            if request is not None and request.decided and not request.answered:
                request.held.append(data)
                return
            self._write(data)

    def write(self, data: bytes) -> None:
        """pygls's frames (answers to the client's requests), each followed by what waited for it."""
        with self._lock:
            self._write(data)
            for rid in self._scan.answers(data):
                self._answered(rid)
                request = self._open.pop(rid, None)
                if request is not None:
                    request.answered = True
                    for held in request.held:
                        self._write(held)
                    request.held.clear()


class _AnswerScanner:
    """The ids of the answers in a byte stream of ``Content-Length`` frames (as pygls writes them)."""

    def __init__(self) -> None:
        self._buffer = b""

    def answers(self, data: bytes) -> list[Any]:
        self._buffer += data
        found: list[Any] = []
        while True:
            head, sep, rest = self._buffer.partition(b"\r\n\r\n")
            if not sep:
                return found
            length = _content_length(head)
            if length is None or len(rest) < length:
                if length is None:  # not a frame: nothing more to learn from this stream's buffer
                    log.warning("pygls wrote something that is not a Content-Length frame")
                    self._buffer = b""
                return found
            body, self._buffer = rest[:length], rest[length:]
            try:
                message = json.loads(body)
            except ValueError:
                log.warning("pygls wrote a frame that is not JSON")
                continue
            if isinstance(message, dict) and "id" in message and "method" not in message:
                found.append(message["id"])


def _content_length(head: bytes) -> int | None:
    for line in head.split(b"\r\n"):
        name, sep, value = line.partition(b":")
        if sep and name.strip().lower() == b"content-length" and value.strip().isdigit():
            return int(value.strip())
    return None
