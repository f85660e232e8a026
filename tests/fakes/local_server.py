"""The fakes' shared lifecycle: an HTTP server on 127.0.0.1 run on a daemon thread, usable as a context manager."""

from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer
from types import TracebackType
from typing import Self


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
