"""A scripted Gemini REST server on 127.0.0.1 for tests: real HTTP, real SSE, injectable faults.

Script entries are consumed first in, first out (countTokens only consumes an entry when the next
one is a token count; otherwise it answers an estimate, so scripts need not mention it):

    [chunk, chunk, ...]                          a stream (or, for generateContent, the chunks merged)
    {"candidates": ...}                          one response (a one-chunk stream when streamed)
    {"totalTokens": 12}                          a countTokens answer
    {"chunks": [...], "delay_s": 0.1}            a stream with a pause before each chunk
    {"chunks": [...], "cut_after": 2}            send two chunks, then drop the connection
    {"status": 429, "retry_after": 1.0}          an error with an HTTP Retry-After header
    {"status": 429, "retry_info": "2s"}          an error carrying google.rpc.RetryInfo
    {"status": 500, "message": "boom"}           any other error, Google's error JSON shape
    {"method": "generateContentStream", "response": [...]}   a Gemini CLI --fake-responses line

Run standalone with ``python -m tests.fakes.fake_gemini --script FILE --port N``: the first line on
stdout is the base URL. ``GET /_fake/requests`` returns what was recorded and ``POST /_fake/script``
(a JSON list) appends entries, so subprocess tests can inspect and steer it.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tests.fakes.local_server import LocalServer, StreamingHandler

log = logging.getLogger(__name__)

SECRET_HEADERS = frozenset({"x-goog-api-key", "authorization"})

STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}

CLI_METHODS = {
    "generateContentStream": "streamGenerateContent",
    "generateContent": "generateContent",
    "countTokens": "countTokens",
}


class RedactedHeaders(dict[str, str]):
    """Request headers (lower-case names); secrets stay readable by key but never show in a repr."""

    def __repr__(self) -> str:
        shown = {k: ("<redacted>" if k in SECRET_HEADERS else v) for k, v in self.items()}
        return f"RedactedHeaders({shown!r})"

    __str__ = __repr__

    def redacted(self) -> dict[str, str]:
        return {k: ("<redacted>" if k in SECRET_HEADERS else v) for k, v in self.items()}


@dataclass
class RecordedRequest:
    """One request the fake received."""

    http_method: str
    path: str
    query: dict[str, str]
    model: str | None
    action: str | None
    body: Any
    headers: RedactedHeaders = field(default_factory=RedactedHeaders)

    @property
    def api_key(self) -> str | None:
        return self.headers.get("x-goog-api-key")

    def to_json(self) -> dict[str, Any]:
        return {
            "http_method": self.http_method,
            "path": self.path,
            "query": self.query,
            "model": self.model,
            "action": self.action,
            "body": self.body,
            "headers": self.headers.redacted(),
        }


@dataclass
class _Entry:
    kind: str  # "stream" | "response" | "count" | "fault"
    data: dict[str, Any]
    method: str | None = None  # REST action the entry insists on, from a Gemini CLI line

    def fits(self, action: str) -> bool:
        return self.method is None or self.method == action


def normalize_entry(raw: Any) -> _Entry:
    """Turn one script entry (any documented spelling) into an _Entry; raise ValueError if unknown."""
    if isinstance(raw, list):
        return _Entry("stream", {"chunks": raw})
    if not isinstance(raw, dict):
        raise ValueError(f"fake_gemini: script entry must be a list or an object, got {type(raw).__name__}")
    if "method" in raw and "response" in raw:
        action = CLI_METHODS.get(raw["method"])
        if action is None:
            raise ValueError(f"fake_gemini: unknown method {raw['method']!r}")
        response = raw["response"]
        if action == "streamGenerateContent":
            chunks = response if isinstance(response, list) else [response]
            return _Entry("stream", {"chunks": chunks}, method=action)
        if action == "countTokens":
            return _Entry("count", dict(response), method=action)
        return _Entry("response", {"response": response}, method=action)
    if "status" in raw:
        return _Entry("fault", dict(raw))
    if "chunks" in raw:
        return _Entry("stream", dict(raw))
    if "totalTokens" in raw:
        return _Entry("count", dict(raw))
    return _Entry("response", {"response": raw})


def load_script(path: str | Path) -> list[Any]:
    """Entries from a ``.jsonl`` file (one entry, or one Gemini CLI line, per line) or a JSON list file."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    if p.suffix != ".jsonl":
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError:
            loaded = None  # not one JSON document: read it as JSONL
        if isinstance(loaded, list):
            return loaded
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def merge_chunks(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """A stream's chunks as one generateContent response: parts joined, last metadata wins."""
    parts: list[Any] = []
    merged: dict[str, Any] = {}
    candidate: dict[str, Any] = {}
    for chunk in chunks:
        for key, value in chunk.items():
            if key != "candidates":
                merged[key] = value
        for cand in chunk.get("candidates") or [{}]:
            parts.extend((cand.get("content") or {}).get("parts") or [])
            candidate.update({k: v for k, v in cand.items() if k != "content"})
            break
    candidate["content"] = {"role": "model", "parts": parts}
    merged["candidates"] = [candidate]
    return merged


def error_body(code: int, message: str, retry_info: str | None = None) -> dict[str, Any]:
    details: list[dict[str, Any]] = []
    if retry_info is not None:
        details.append({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retry_info})
    error: dict[str, Any] = {"code": code, "message": message, "status": STATUS_NAMES.get(code, "UNKNOWN")}
    if details:
        error["details"] = details
    return {"error": error}


def _estimate_tokens(body: Any) -> int:
    return max(1, len(json.dumps(body)) // 4)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], fake: FakeGemini) -> None:
        super().__init__(address, _Handler)
        self.fake = fake


class _Handler(StreamingHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        # SSE is many small writes; without this, Nagle plus delayed ACKs add ~40 ms per chunk.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("fake_gemini: " + format, *args)

    def _refused_key(self) -> bool:
        """Answer a request whose key the fake does not accept, as the Gemini API does; True if it did."""
        accepted = self.server.fake.api_keys
        query = dict(parse_qsl(urlsplit(self.path).query))
        key = self.headers.get("x-goog-api-key") or query.get("key")
        if accepted is None or key in accepted:
            return False
        self._send_json(400, error_body(400, "API key not valid. Please pass a valid API key."))
        return True

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if not path.startswith("/_fake/") and self._refused_key():
            return
        if path == "/_fake/requests":
            self._send_json(200, [r.to_json() for r in self.server.fake.requests])
        elif path.endswith("/models") and self.server.fake.models is not None:
            self._send_json(200, {"models": self.server.fake.models})
        else:
            self._send_json(404, error_body(404, f"fake_gemini: no GET route {self.path}"))

    def do_POST(self) -> None:
        fake = self.server.fake
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = raw.decode("utf-8", "replace")
        if parts.path == "/_fake/script":
            fake.push(*(body if isinstance(body, list) else [body]))
            self._send_json(200, {"remaining": fake.remaining})
            return
        if self._refused_key():
            return
        model, action = _model_and_action(parts.path)
        headers = RedactedHeaders({k.lower(): v for k, v in self.headers.items()})
        query = dict(parse_qsl(parts.query))
        fake._record(RecordedRequest("POST", parts.path, query, model, action, body, headers))
        if action is None:
            self._send_json(404, error_body(404, f"fake_gemini: no route {parts.path}"))
            return
        entry = fake._take(action)
        if isinstance(entry, str):
            self._send_json(400, error_body(400, entry))
            return
        if action == "countTokens" and entry is None:
            self._send_json(200, {"totalTokens": _estimate_tokens(body)})
            return
        assert entry is not None
        try:
            self._respond(action, entry)
        except (BrokenPipeError, ConnectionResetError):
            log.debug("fake_gemini: client went away during %s", action)
            self.close_connection = True

    def _respond(self, action: str, entry: _Entry) -> None:
        data = entry.data
        delay = float(data.get("delay_s") or 0.0)
        if entry.kind == "fault":
            if delay:
                time.sleep(delay)
            code = int(data["status"])
            message = str(data.get("message") or f"fake_gemini scripted {code}")
            extra = {}
            if data.get("retry_after") is not None:
                extra["Retry-After"] = _format_retry_after(data["retry_after"])
            self._send_json(code, error_body(code, message, data.get("retry_info")), extra)
            return
        if entry.kind == "count":
            self._send_json(200, {k: v for k, v in data.items() if k != "delay_s"})
            return
        chunks: list[dict[str, Any]] = data["chunks"] if entry.kind == "stream" else [data["response"]]
        if action != "streamGenerateContent":
            if delay:
                time.sleep(delay)
            if data.get("cut_after") is not None:
                self.drop()
                return
            self._send_json(200, chunks[0] if len(chunks) == 1 else merge_chunks(chunks))
            return
        self.stream_sse(chunks, delay=delay, cut_after=data.get("cut_after"), separator="\r\n\r\n")

    def _send_json(self, code: int, payload: Any, extra_headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (extra_headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


def _format_retry_after(value: Any) -> str:
    number = float(value)
    return str(int(number)) if number.is_integer() else str(number)


def _model_and_action(path: str) -> tuple[str | None, str | None]:
    """``/v1beta/models/gemini-2.5-pro:streamGenerateContent`` -> (model, action); Vertex paths too."""
    marker = "/models/"
    at = path.rfind(marker)
    if at < 0 or ":" not in path[at:]:
        return None, None
    model, _, action = path[at + len(marker) :].partition(":")
    return model, action


class FakeGemini(LocalServer):
    """The server. Use as a context manager or call start()/stop(); ``url`` is the base URL to give the SDK."""

    def __init__(self, script: Iterable[Any] = (), *, host: str = "127.0.0.1", port: int = 0) -> None:
        self._lock = threading.Lock()
        self._script: deque[_Entry] = deque()
        self._requests: list[RecordedRequest] = []
        self._address = (host, port)
        super().__init__()
        self.models: list[dict[str, Any]] | None = None  # what GET .../models lists (None: 404)
        # The keys it accepts (None: any). Another key is answered as Gemini answers one: 400 API key not valid.
        self.api_keys: set[str] | None = None
        self.push(*script)

    # -- scripting and inspection -------------------------------------------------------------

    def push(self, *entries: Any) -> None:
        normalized = [normalize_entry(e) for e in entries]
        with self._lock:
            self._script.extend(normalized)

    def load(self, path: str | Path) -> None:
        self.push(*load_script(path))

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def generation_requests(self) -> list[RecordedRequest]:
        """Requests other than countTokens, the ones scripts usually count."""
        return [r for r in self.requests if r.action in ("streamGenerateContent", "generateContent")]

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _take(self, action: str) -> _Entry | str | None:
        """The next entry for ``action``; None for an unscripted countTokens; a message if none fits."""
        with self._lock:
            head = self._script[0] if self._script else None
            if action == "countTokens" and (head is None or head.kind != "count"):
                return None
            if head is None:
                return f"fake_gemini: no scripted response left for {action}"
            if not head.fits(action):
                return f"fake_gemini: next scripted entry is for {head.method}, but the client called {action}"
            return self._script.popleft()

    # -- lifecycle ------------------------------------------------------------------------------

    thread_name = "fake-gemini"

    def _create_server(self) -> _Server:
        return _Server(self._address, self)


def serve(script: Iterable[Any] = ()) -> Iterator[FakeGemini]:
    """A generator suitable for a pytest fixture body: yields a started server, stops it after."""
    fake = FakeGemini(script)
    fake.start()
    try:
        yield fake
    finally:
        fake.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fakes.fake_gemini", description=__doc__.splitlines()[0])
    parser.add_argument("--script", help="JSON list or JSONL file of scripted entries")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0 picks a free one)")
    args = parser.parse_args(argv)
    fake = FakeGemini(load_script(args.script) if args.script else ())
    server = _Server((fake._address[0], args.port), fake)
    fake._server = server

    def _stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, _stop)
    sys.stdout.write(fake.url + "\n")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
