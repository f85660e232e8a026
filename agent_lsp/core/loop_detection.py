"""Loop detection: the same tool call over and over, or streamed text that keeps repeating itself."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from agent_lsp import events as ev

TOOL_CALL_LOOP_THRESHOLD = 5
CONTENT_CHUNK_SIZE = 50
CONTENT_LOOP_THRESHOLD = 10
MAX_HISTORY_CHARS = 5000


class LoopDetector:
    """Fed every event of a prompt; returns a LoopDetected event the first time a loop shows."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.reset()

    def reset(self) -> None:
        self._last_call_key: str | None = None
        self._call_repeats = 0
        self._text = ""
        self._positions: dict[str, list[int]] = {}
        self._base = 0  # stream offset of self._text[0]
        self._scanned = 0  # stream offset of the next chunk to look at
        self._in_code_block = False
        self.detected: ev.LoopDetected | None = None

    def check(self, event: ev.AgentEvent) -> ev.LoopDetected | None:
        if not self.enabled or self.detected is not None:
            return None
        found: ev.LoopDetected | None = None
        if isinstance(event, ev.ToolCallRequest):
            found = self._check_call(event.call.name, event.call.args)
        elif isinstance(event, ev.Content):
            found = self._check_content(event.text)
        elif isinstance(event, ev.Retry):
            # The partial output is void; so is what we learnt from it.
            self._clear_text()
        self.detected = found
        return found

    def _check_call(self, name: str, args: dict[str, Any]) -> ev.LoopDetected | None:
        key = hashlib.sha256(f"{name}:{json.dumps(args, sort_keys=True, default=str)}".encode()).hexdigest()
        if key == self._last_call_key:
            self._call_repeats += 1
        else:
            self._last_call_key, self._call_repeats = key, 1
        # Text between calls breaks a content loop, and a call breaks text repetition.
        self._clear_text()
        if self._call_repeats >= TOOL_CALL_LOOP_THRESHOLD:
            return ev.LoopDetected("tool_call", f"{name} called {self._call_repeats} times in a row with the same args")
        return None

    def _check_content(self, text: str) -> ev.LoopDetected | None:
        # Code, tables and lists repeat by nature; only plain prose counts.
        if text.count("```") % 2 == 1:
            self._in_code_block = not self._in_code_block
        if self._in_code_block or "```" in text:
            self._clear_text()
            return None
        self._last_call_key, self._call_repeats = None, 0
        self._text += text
        # Positions are absolute offsets in the stream, so trimming old text never rewrites them: each
        # character costs O(1) however long the answer grows (this loop runs for every streamed character).
        text_all, base, size = self._text, self._base, CONTENT_CHUNK_SIZE
        positions_by_chunk = self._positions
        scanned = self._scanned
        last = base + len(text_all) - size  # the last offset where a whole chunk fits
        try:
            while scanned <= last:
                rel = scanned - base
                chunk = text_all[rel : rel + size]
                positions = positions_by_chunk.get(chunk)
                if positions is None:
                    positions_by_chunk[chunk] = [scanned]  # a list: a deque per offset costs ~600 bytes
                # Count only non-overlapping copies, so a long run of one character is not ten "repeats".
                elif scanned - positions[-1] >= size:
                    positions.append(scanned)
                    if len(positions) > CONTENT_LOOP_THRESHOLD:
                        del positions[0]
                    # Ten copies close together: each repetition at most a few chunk lengths apart.
                    if len(positions) >= CONTENT_LOOP_THRESHOLD and positions[-1] - positions[0] <= size * 30:
                        return ev.LoopDetected("content", f"the same text repeated {len(positions)} times: {chunk!r}")
                scanned += 1
        finally:
            self._scanned = scanned
        if len(self._text) > 2 * MAX_HISTORY_CHARS:
            drop = len(self._text) - MAX_HISTORY_CHARS
            self._text = self._text[drop:]
            self._base += drop
            self._positions = {k: v for k, v in self._positions.items() if v and v[-1] >= self._base}
        return None

    def _clear_text(self) -> None:
        self._text = ""
        self._positions = {}
        self._base = self._scanned = 0
