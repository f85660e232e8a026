"""LSP frames by hand, for tests that drive a server subprocess over raw pipes (order and bytes exactly as sent)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any


def frame(message: object) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_frame(stream: IO[bytes]) -> dict[str, Any] | None:
    """The next message, or None once the server closed its output."""
    length = 0
    while True:
        line = stream.readline()
        if not line:
            return None
        if line == b"\r\n":
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


def next_frame(stream: IO[bytes]) -> dict[str, Any]:
    """The next message; the server closing its output fails the test."""
    message = read_frame(stream)
    assert message is not None, "the server closed its output"
    return message


def open_session(stdin: IO[bytes], cwd: Path, session_request_id: int = 2) -> None:
    """Send what an editor sends to open a session: ``initialize`` (id 1), ``initialized``, ``agent/newSession``."""
    start = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": session_request_id, "method": "agent/newSession", "params": {"cwd": str(cwd)}},
    ]
    stdin.write(b"".join(frame(m) for m in start))
    stdin.flush()
