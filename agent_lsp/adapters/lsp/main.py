"""``agent-lsp lsp``: answer ``initialize`` at once, then hand the connection to the pygls server.

The protocol library alone takes longer to import than the start-up budget allows, so the first frame is
read and, when it is ``initialize``, answered here with the standard library only. The frame is then
replayed to pygls (which sets up its state from it and whose duplicate answer is dropped), followed by
everything the editor sent meanwhile.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from typing import Any, BinaryIO


class _Replayed(io.RawIOBase):
    """stdin with the bytes main.py already consumed put back in front."""

    def __init__(self, consumed: bytes, stream: BinaryIO) -> None:
        super().__init__()
        self._head = io.BytesIO(consumed)
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> bytes:
        line = self._head.readline()
        if line.endswith(b"\n"):
            return line
        return line + self._stream.readline()

    def read(self, size: int | None = -1) -> bytes:
        data = self._head.read(size if size is not None else -1)
        if size is None or size < 0:
            return data + self._stream.read()
        if len(data) < size:
            data += self._stream.read(size - len(data))
        return data


def _read_frame(stream: BinaryIO) -> tuple[bytes, bytes | None]:
    """(raw bytes read, body) of the first JSON-RPC frame; body None at EOF or on a malformed header."""
    raw = b""
    length: int | None = None
    while True:
        line = stream.readline()
        raw += line
        if not line:
            return raw, None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                return raw, None
    if length is None:
        return raw, None
    body = stream.read(length)
    return raw + body, body


def _write_frame(stream: BinaryIO, message: dict[str, Any]) -> None:
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def serve(args: argparse.Namespace) -> int:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    consumed, body = _read_frame(stdin)
    preanswered: dict[str, Any] | None = None
    if body is not None:
        try:
            first = json.loads(body)
        except ValueError:
            first = None
        if isinstance(first, dict) and first.get("method") == "initialize" and "id" in first:
            from agent_lsp.adapters.lsp.capabilities import initialize_result

            _write_frame(stdout, {"jsonrpc": "2.0", "id": first["id"], "result": initialize_result()})
            preanswered = first
    elif not consumed:
        return 0  # the editor closed the pipe before saying anything

    from agent_lsp.adapters.lsp.server import run
    from agent_lsp.adapters.lsp.service import ServiceOptions

    options = ServiceOptions(fake_responses=args.fake_responses, model=args.model, approval_mode=args.approval_mode)
    reader: Any = _Replayed(consumed, stdin)
    return run(options, stdin=reader, stdout=stdout, preanswered=preanswered, debug=bool(args.debug))
