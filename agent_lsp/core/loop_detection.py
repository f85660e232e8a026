"""Loop detection: the same tool call over and over, or streamed text that keeps repeating itself."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
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
        self._positions: dict[str, list[int]] = defaultdict(list)
        self._scanned = 0
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
            self._text, self._positions, self._scanned = "", defaultdict(list), 0
        self.detected = found
        return found

    def _check_call(self, name: str, args: dict[str, Any]) -> ev.LoopDetected | None:
        key = hashlib.sha256(f"{name}:{json.dumps(args, sort_keys=True, default=str)}".encode()).hexdigest()
        if key == self._last_call_key:
            self._call_repeats += 1
        else:
            self._last_call_key, self._call_repeats = key, 1
        # Text between calls breaks a content loop, and a call breaks text repetition.
        self._text, self._positions, self._scanned = "", defaultdict(list), 0
        if self._call_repeats >= TOOL_CALL_LOOP_THRESHOLD:
            return ev.LoopDetected("tool_call", f"{name} called {self._call_repeats} times in a row with the same args")
        return None

    def _check_content(self, text: str) -> ev.LoopDetected | None:
        # Code, tables and lists repeat by nature; only plain prose counts.
        if text.count("```") % 2 == 1:
            self._in_code_block = not self._in_code_block
        if self._in_code_block or "```" in text:
            self._text, self._positions, self._scanned = "", defaultdict(list), 0
            return None
        self._last_call_key, self._call_repeats = None, 0
        self._text += text
        if len(self._text) > MAX_HISTORY_CHARS:
            drop = len(self._text) - MAX_HISTORY_CHARS
            self._text = self._text[drop:]
            self._positions = defaultdict(
                list, {k: [p - drop for p in v if p >= drop] for k, v in self._positions.items()}
            )
            self._scanned = max(0, self._scanned - drop)
        while self._scanned + CONTENT_CHUNK_SIZE <= len(self._text):
            chunk = self._text[self._scanned : self._scanned + CONTENT_CHUNK_SIZE]
            key = hashlib.sha256(chunk.encode()).hexdigest()
            positions = self._positions[key]
            # Count only non-overlapping copies, so a long run of one character is not ten "repeats".
            if not positions or self._scanned - positions[-1] >= CONTENT_CHUNK_SIZE:
                positions.append(self._scanned)
            self._scanned += 1
            if len(positions) >= CONTENT_LOOP_THRESHOLD:
                recent = positions[-CONTENT_LOOP_THRESHOLD:]
                span = recent[-1] - recent[0]
                # Ten copies close together: each repetition is at most a few chunk lengths apart.
                if span <= CONTENT_CHUNK_SIZE * 3 * CONTENT_LOOP_THRESHOLD:
                    return ev.LoopDetected("content", f"the same text repeated {len(positions)} times: {chunk!r}")
        return None
