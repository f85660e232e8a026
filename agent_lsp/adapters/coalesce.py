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
        self._texts: list[str] = []  # the held notification's text, in pieces: joined once, when written
        self._timer: asyncio.TimerHandle | None = None
        self._sent_at = float("-inf")

    def offer(self, method: str, params: Any) -> None:
        """Write or hold a text notification (params ``{"sessionId", "update": agent_message_chunk}``)."""
        if self._held is not None:
            held_method, held_params = self._held
            if held_method == method and mergeable(held_params, params):
                self._texts.append(params["update"]["content"]["text"])
                return
            self.flush()
        loop = asyncio.get_running_loop()
        due = self._sent_at + FRAME_S
        if loop.time() >= due:
            self._sent_at = loop.time()
            self._write(method, params)
            return
        self._held = (method, params)
        self._texts = [params["update"]["content"]["text"]]
        self._timer = loop.call_at(due, self.flush)

    def flush(self) -> None:
        """Write the held notification now, if any."""
        held, self._held = self._held, None
        texts, self._texts = self._texts, []
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if held is not None:
            self._sent_at = asyncio.get_running_loop().time()
            method, params = held
            if len(texts) > 1:
                params = _with_text(params, "".join(texts))
            self._write(method, params)


def mergeable(held: Any, new: Any) -> bool:
    """Whether two notifications are ``agent_message_chunk`` updates of one session that differ only in text."""
    a, b = held["update"], new["update"]
    if held["sessionId"] != new["sessionId"] or a.keys() != b.keys() or a.get("sessionUpdate") != "agent_message_chunk":
        return False
    if any(a[k] != b[k] for k in a if k != "content"):
        return False
    ca, cb = a["content"], b["content"]
    return ca.keys() == cb.keys() and ca.get("type") == "text" and all(ca[k] == cb[k] for k in ca if k != "text")


def merge_text(held: Any, new: Any) -> Any | None:
    """Two ``agent_message_chunk`` updates of one session as one (text joined, in order), else None."""
    if not mergeable(held, new):
        return None
    return _with_text(held, held["update"]["content"]["text"] + new["update"]["content"]["text"])


def _with_text(params: Any, text: str) -> Any:
    update = params["update"]
    return {**params, "update": {**update, "content": {**update["content"], "text": text}}}
