"""The fakes' shared lifecycle: an HTTP server on 127.0.0.1 run on a daemon thread, usable as a context manager."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self


class LocalServer:
    """Subclasses build their server in ``_create_server`` and name the URL's path in ``url_suffix``."""

    thread_name = "fake-server"
    url_suffix = ""

    def __init__(self) -> None:
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def _create_server(self) -> ThreadingHTTPServer:
        raise NotImplementedError

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError(f"{self.thread_name}: not started")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{self.url_suffix}"

    def start(self) -> str:
        self._server = self._create_server()
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name=self.thread_name, daemon=True
        )
        self._thread.start()
        return self.url

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


class StreamingHandler(BaseHTTPRequestHandler):
    """What both fakes' handlers share: a server-sent-events answer in chunked encoding, with fault injection."""

    def stream_sse(
        self,
        chunks: Sequence[Any],
        *,
        delay: float = 0.0,
        cut_after: int | None = None,
        separator: str = "\n\n",
        done: bytes | None = None,
    ) -> None:
        """Send each chunk as a ``data:`` event; ``cut_after`` drops the connection after that many events (the
        client must see a broken body), ``done`` is a last event some APIs send (OpenAI's ``[DONE]``)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for index, chunk in enumerate(chunks):
            if cut_after is not None and index >= cut_after:
                self.drop()
                return
            if delay:
                time.sleep(delay)
            self.write_chunk(f"data: {json.dumps(chunk)}{separator}".encode())
        if cut_after is not None:
            self.drop()
            return
        if done is not None:
            self.write_chunk(done)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def write_chunk(self, payload: bytes) -> None:
        self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
        self.wfile.flush()

    def drop(self) -> None:
        # No terminating zero-length chunk: the client must see a broken body, not a short one.
        self.wfile.flush()
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
