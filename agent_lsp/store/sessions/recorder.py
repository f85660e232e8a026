"""SessionRecorder: appends one session's events, history snapshots and title to its JSONL file as they happen."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from agent_lsp.atomic_file import json_bytes
from agent_lsp.event_json import event_to_dict
from agent_lsp.events import AgentEvent, FileDiff, ToolCallConfirmation, ToolCallResponse
from agent_lsp.events import Content as TextEvent
from agent_lsp.model.base import Content
from agent_lsp.model.wire import content_to_json

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
_SEP = (",", ":")
# Streamed text waits at most this long before it is written: consecutive text chunks become one record.
TEXT_FLUSH_S = 0.05


# A file diff bigger than this (old and new text together) is recorded without its texts: serialising a 5 MB
# file's before and after on the event loop, into every edit's record, cost more than the edit itself. A loaded
# session then shows the call and its summary, without the diff.
RECORDED_DIFF_CHARS = 1_000_000


def _huge(diff: FileDiff | None) -> bool:
    return diff is not None and len(diff.old_text or "") + len(diff.new_text) > RECORDED_DIFF_CHARS


def _without_huge_diff(event: AgentEvent) -> AgentEvent:
    if isinstance(event, ToolCallResponse) and (_huge(event.diff) or any(map(_huge, event.extra_diffs))):
        return replace(event, diff=None, extra_diffs=())
    if isinstance(event, ToolCallConfirmation) and (
        _huge(event.details.diff) or any(map(_huge, event.details.extra_diffs))
    ):
        return replace(event, details=replace(event.details, diff=None, extra_diffs=()))
    return event


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class SessionRecorder:
    """Appends one session's events, history snapshots and title to its JSONL file, flushing every line.

    Streamed text is the exception: consecutive ``content`` events (one per model chunk, thousands a second)
    are merged into one record, written when any other record comes or :data:`TEXT_FLUSH_S` after the
    first of them, whichever is first. A process killed mid-answer therefore loses at most that much of
    the text (every line on disk is still whole), and a loaded session shows the same text in fewer events.
    Without a running event loop (no timer to rely on) each event is written at once, as before.

    Usable directly as an :class:`agent_lsp.core.ports.EventSink`. Recording problems (disk full, closed
    file) are logged, never raised, because a broken recording must not break the conversation.
    """

    def __init__(self, path: Path, session_id: str, cwd: Path) -> None:
        self.path = path
        self.session_id = session_id
        self._lock = threading.Lock()
        # Snapshots are written as deltas against the previous one; a resumed recorder starts with a full one.
        self._last_history: tuple[Content, ...] | None = None
        self._file: IO[bytes] | None = None
        self._text: list[str] = []  # streamed text not written yet
        self._text_id = ""  # the message id of that text
        self._text_timer: asyncio.TimerHandle | None = None
        path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not path.exists() or path.stat().st_size == 0
        self._file = open(path, "ab")  # noqa: SIM115 - kept open for the life of the session
        if fresh:
            header = {
                "type": "session",
                "id": session_id,
                "cwd": str(cwd),
                "created": _now(),
                "version": FORMAT_VERSION,
            }
            self._write(header)
        else:
            self._terminate_partial_line()

    def _terminate_partial_line(self) -> None:
        # A writer killed mid-line leaves a fragment; a newline makes it a lone garbled line the loader skips
        # instead of gluing our next record onto it.
        with open(self.path, "rb") as existing:
            existing.seek(-1, os.SEEK_END)
            last = existing.read(1)
        if last != b"\n" and self._file is not None:
            self._file.write(b"\n")
            self._file.flush()

    def __call__(self, event: AgentEvent) -> None:
        try:
            if isinstance(event, TextEvent) and not event.compaction_id:  # a compaction's report stays whole
                if self._text and event.message_id != self._text_id:
                    self._flush_text()  # one record never mixes two messages: each keeps its own id
                if self._hold_text(event.text):
                    self._text_id = event.message_id
                    return
            self._flush_text()
            self._write({"type": "event", "event": event_to_dict(_without_huge_diff(event))})
        except Exception:
            log.exception("could not record %s event of session %s", event.kind, self.session_id)

    def _hold_text(self, text: str) -> bool:
        """Keep streamed text to write with the chunks that follow; False when it must be written now."""
        if not self._text:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return False
            self._text_timer = loop.call_later(TEXT_FLUSH_S, self._flush_text)
        self._text.append(text)
        return True

    def _flush_text(self) -> None:
        """Write the held text as one ``content`` record (called before any other record and by the timer)."""
        if self._text_timer is not None:
            self._text_timer.cancel()
            self._text_timer = None
        if not self._text:
            return
        text, self._text = "".join(self._text), []
        try:
            self._write({"type": "event", "event": event_to_dict(TextEvent(text, self._text_id))})
        except Exception:
            log.exception("could not record streamed text of session %s", self.session_id)

    def record_history(self, contents: Sequence[Content]) -> None:
        """Record the full API history (call after each prompt). Only what changed since the last one is written."""
        try:
            self._flush_text()
            current = tuple(contents)
            base = 0
            previous = self._last_history
            if previous is not None:
                limit = min(len(previous), len(current))
                # Identity first: the entries are usually the very same objects, and a deep == of every
                # entry cost each prompt ~0.1 ms per 10 entries.
                while base < limit and (previous[base] is current[base] or previous[base] == current[base]):
                    base += 1
                if base < len(previous):
                    base = 0  # the old history was rewritten (compression): write it whole
            record: dict[str, Any] = {"type": "history", "contents": [content_to_json(c) for c in current[base:]]}
            if base:
                record["base"] = base
            self._write(record)
            self._last_history = current
        except Exception:
            log.exception("could not record history of session %s", self.session_id)

    def record_rewind(self, cut: int | None) -> None:
        """The conversation was rewound to before user message ``cut`` (its events from there on are dropped
        when the recording is read), or, with None, the last rewind was undone (they are kept again)."""
        try:
            self._flush_text()
            self._write({"type": "rewind", "message": cut} if cut is not None else {"type": "rewind_undone"})
        except Exception:
            log.exception("could not record a rewind of session %s", self.session_id)

    def set_title(self, title: str) -> None:
        try:
            self._flush_text()
            self._write({"type": "title", "title": title})
        except Exception:
            log.exception("could not record title of session %s", self.session_id)

    def close(self) -> None:
        self._flush_text()
        with self._lock:
            file, self._file = self._file, None
        if file is not None:
            try:
                file.close()
            except OSError:
                log.exception("could not close recording of session %s", self.session_id)

    @property
    def closed(self) -> bool:
        return self._file is None

    def _write(self, record: dict[str, Any]) -> None:
        line = json_bytes(record, separators=_SEP) + b"\n"
        with self._lock:
            if self._file is None:
                log.debug("session %s is closed; dropping a %s record", self.session_id, record["type"])
                return
            self._file.write(line)
            # A flush survives the process being killed, which is the crash that matters here; an fsync per
            # prompt would cost about a millisecond of every turn on a slow disk.
            self._file.flush()
