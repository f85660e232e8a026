"""Newline-delimited frames out of a byte stream, holding at most one frame's worth of bytes at a time."""

from __future__ import annotations

from collections.abc import Callable

from agent_lsp.adapters import wire


class LineFrames:
    """Fed chunks as they arrive, hands out complete lines. A line longer than ``max_frame`` is reported once
    through ``too_big`` and skipped as it streams in, never held in memory."""

    def __init__(self, max_frame: int, too_big: Callable[[wire.Rejection], None]) -> None:
        self._max_frame = max_frame
        self._too_big = too_big
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer already known to hold no newline (big frames stay linear)
        self._skipping = False  # inside an oversized frame: discard up to its newline

    def feed(self, chunk: bytes) -> None:
        self._buffer += chunk

    def next_line(self) -> bytes | None:
        """The next complete frame, or None until more bytes arrive."""
        while True:
            index = self._buffer.find(b"\n", self._scanned)
            if index >= 0:
                line = bytes(self._buffer[:index])
                del self._buffer[: index + 1]
                self._scanned = 0
                if self._skipping:
                    self._skipping = False
                    continue
                if len(line) > self._max_frame:
                    self._too_big(wire.too_big(len(line), self._max_frame))
                    continue
                return line
            if len(self._buffer) > self._max_frame:
                if not self._skipping:
                    self._too_big(wire.too_big(len(self._buffer), self._max_frame))
                self._skipping = True
                self._buffer.clear()
            self._scanned = len(self._buffer)
            return None

    def last(self) -> bytes | None:
        """At end of input: a final frame the client did not end with a newline, if there is one."""
        if self._buffer.strip() and not self._skipping:
            return bytes(self._buffer)
        return None
