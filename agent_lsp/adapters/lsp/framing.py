"""``Content-Length`` framing read defensively from a blocking byte stream (stdlib only).

Whatever arrives, memory stays bounded and the reader finds the next sound frame: header lines are read
at most ``MAX_HEADER_LINE`` bytes at a time, a frame over the size limit is skipped without being kept,
and garbage is reported once per run (not once per line) so a stream of junk cannot flood the client.
Lines may end in CRLF (the standard) or a bare LF (lenient clients).
"""

from __future__ import annotations

import re

from agent_lsp.adapters import wire

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

MAX_HEADER_LINE = 8192
_HEADER = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*:[ \t]*(.*)")
_CONTENT_LENGTH = re.compile(rb"content-length:", re.IGNORECASE)
_SKIP_CHUNK = 1 << 16


class FrameReader:
    """``next()`` → the next frame's body, a ``wire.Rejection`` to answer, or None at end of input."""

    def __init__(self, stream: BinaryIO, limit: int | None = None) -> None:
        self._stream = stream
        self._limit = limit or wire.max_frame_bytes()
        self._in_garbage = False  # a run of junk is reported once, when it starts
        self._carry: bytes | None = None  # a header found inside a junk line, read next

    def next(self) -> bytes | wire.Rejection | None:
        length: int | None = None
        headers = 0
        while True:
            line = self._line()
            if line is None:
                return None
            if not line:
                if headers == 0:
                    continue  # blank lines between frames are harmless
                if length is not None:
                    return self._body(length)
                rejection = self._junk("Parse error: a header block without a valid Content-Length")
                if rejection is not None:
                    return rejection
                headers = 0  # inside a run of junk already: keep looking for the next frame
                continue
            match = _HEADER.fullmatch(line)
            if match is None:
                found = _CONTENT_LENGTH.search(line)
                if found is not None and found.start() > 0:
                    self._carry = line[found.start() :]  # resynchronise on a header glued to junk
                rejection = self._junk("Parse error: expected a Content-Length header")
                if rejection is not None:
                    return rejection
                length, headers = None, 0
                continue
            headers += 1
            if match.group(1).lower() == b"content-length":
                value = match.group(2).strip()
                length = int(value) if value.isdigit() else None
                if length is None:
                    rejection = self._junk(f"Parse error: bad Content-Length {value[:40]!r}")
                    if rejection is not None:
                        return rejection
                    headers = 0

    def _line(self) -> bytes | None:
        """The next header line without its line break, cut at MAX_HEADER_LINE (the rest is dropped)."""
        if self._carry is not None:
            line, self._carry = self._carry, None
            return line
        line = self._stream.readline(MAX_HEADER_LINE)
        if not line:
            return None
        if not line.endswith(b"\n"):
            while True:  # an overlong line: drop the rest of it, unread
                rest = self._stream.readline(MAX_HEADER_LINE)
                if not rest or rest.endswith(b"\n"):
                    break
            line = b"\x00" + line[:64]  # never a valid header
        return line.rstrip(b"\r\n")

    def _junk(self, message: str) -> wire.Rejection | None:
        if self._in_garbage:
            return None
        self._in_garbage = True
        return wire.Rejection(None, wire.PARSE_ERROR, message)

    def _body(self, length: int) -> bytes | wire.Rejection | None:
        self._in_garbage = False
        if length > self._limit:
            left = length
            while left > 0:
                chunk = self._stream.read(min(left, _SKIP_CHUNK))
                if not chunk:
                    return None
                left -= len(chunk)
            return wire.too_big(length, self._limit)
        body = self._stream.read(length) if length else b""
        if len(body) < length:
            return None  # the input ended inside the frame
        return body
