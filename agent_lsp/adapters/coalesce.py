"""Streamed text merged within a frame: fewer messages when the model writes faster than a client draws."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

FRAME_S = 0.016  # one frame at 60 Hz: the longest streamed text waits to be merged


class TextMerger:
    """Holds one text notification while more arrive within a frame, merging them; the owner calls
    :meth:`flush` before writing any other frame, so nothing is reordered or delayed behind text.

    The first notification after a quiet frame is written at once (merging never adds latency to a slow
    stream); those that follow within :data:`FRAME_S` are merged and written when the frame ends.
    """

    def __init__(self, write: Callable[[str, Any], None]) -> None:
        self._write = write
        self._held: tuple[str, Any] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._sent_at = float("-inf")

    def offer(self, method: str, params: Any) -> None:
        """Write or hold a text notification (params ``{"sessionId", "update": agent_message_chunk}``)."""
        if self._held is not None:
            held_method, held_params = self._held
            merged = merge_text(held_params, params) if held_method == method else None
            if merged is not None:
                self._held = (method, merged)
                return
            self.flush()
        loop = asyncio.get_running_loop()
        due = self._sent_at + FRAME_S
        if loop.time() >= due:
            self._sent_at = loop.time()
            self._write(method, params)
            return
        self._held = (method, params)
        self._timer = loop.call_at(due, self.flush)

    def flush(self) -> None:
        """Write the held notification now, if any."""
        held, self._held = self._held, None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if held is not None:
            self._sent_at = asyncio.get_running_loop().time()
            self._write(*held)


def merge_text(held: Any, new: Any) -> Any | None:
    """Two ``agent_message_chunk`` updates of one session as one (text joined, in order), else None."""
    a, b = held["update"], new["update"]
    if held["sessionId"] != new["sessionId"] or a.keys() != b.keys() or a.get("sessionUpdate") != "agent_message_chunk":
        return None
    if any(a[k] != b[k] for k in a if k != "content"):
        return None
    ca, cb = a["content"], b["content"]
    if ca.keys() != cb.keys() or ca.get("type") != "text" or any(ca[k] != cb[k] for k in ca if k != "text"):
        return None
    return {**held, "update": {**a, "content": {**ca, "text": ca["text"] + cb["text"]}}}
