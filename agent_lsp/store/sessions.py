"""Session recording to per-project JSONL files, and listing, loading and deleting them for resume."""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import logging
import os
import re
import threading
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from agent_lsp.atomic_file import json_bytes
from agent_lsp.config.paths import project_state_dir
from agent_lsp.events import AgentEvent, SessionTitle, UserMessage, event_from_dict, event_to_dict
from agent_lsp.events import Content as TextEvent
from agent_lsp.model.base import Content
from agent_lsp.model.wire import content_from_json, content_to_json

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
TITLE_MAX = 60
_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_MENTION_RE = re.compile(r"@((?:\\.|[^\s\\])+)")
_SEP = (",", ":")
# Streamed text waits at most this long before it is written: consecutive text chunks become one record.
TEXT_FLUSH_S = 0.05


class SessionNotFoundError(LookupError):
    """No recording with that id in this project (or the id is not a valid session id)."""


@dataclass(frozen=True)
class SessionInfo:
    """What a session list shows. Times are ISO 8601 (UTC); ``title`` is None for a session with no prompt yet."""

    id: str
    title: str | None
    cwd: str
    created: str
    updated: str
    prompt_count: int


@dataclass(frozen=True)
class LoadedSession:
    """A recording read back: the events to replay to an editor and the API history to continue from."""

    info: SessionInfo
    events: list[AgentEvent]
    history: list[Content]
    skipped: int = 0  # lines that could not be read (a torn last line after a crash, a garbled one): left out


def new_session_id() -> str:
    return uuid.uuid4().hex


def valid_session_id(session_id: str) -> bool:
    """Ids become file names, so only a conservative alphabet is accepted (no separators, no leading dot)."""
    return bool(_ID_RE.fullmatch(session_id))


def derive_title(prompt: str) -> str:
    """A short title from a prompt: its first non-empty line, whitespace collapsed, at most 60 characters.

    ``@path`` mentions are shortened to the file's name so the words around them stay visible.
    """
    line = next((ln for ln in prompt.splitlines() if ln.strip()), "")
    line = _MENTION_RE.sub(_short_mention, line)
    line = " ".join(line.split())
    if not line:
        return "Untitled"
    if len(line) <= TITLE_MAX:
        return line
    cut = line[: TITLE_MAX - 1]
    space = cut.rfind(" ")
    # Break at a word when that keeps most of the room; a single huge token is cut mid-word instead.
    if space >= TITLE_MAX * 2 // 3:
        cut = cut[:space]
    return cut.rstrip(" ,.;:-") + "…"


def _short_mention(match: re.Match[str]) -> str:
    raw = re.sub(r"\\(.)", r"\1", match.group(1))
    is_dir = raw.endswith("/")
    name = raw.rstrip("/").rsplit("/", 1)[-1] or raw
    return "@" + name + ("/" if is_dir else "")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _iso_from_ns(ns: int) -> str:
    return datetime.fromtimestamp(ns / 1e9, UTC).isoformat(timespec="milliseconds")


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
            if isinstance(event, TextEvent) and self._hold_text(event.text):
                return
            self._flush_text()
            self._write({"type": "event", "event": event_to_dict(event)})
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
            self._write({"type": "event", "event": event_to_dict(TextEvent(text))})
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


class SessionStore:
    """The recordings of one project, under ``project_state_dir(project_root)/sessions``."""

    def __init__(self, project_root: Path) -> None:
        self.project_root = project_root
        self.directory = project_state_dir(project_root) / "sessions"

    def path_for(self, session_id: str) -> Path:
        if not valid_session_id(session_id):
            raise ValueError(f"invalid session id {session_id!r}")
        return self.directory / f"{session_id}.jsonl"

    def recorder(self, session_id: str, cwd: Path) -> SessionRecorder:
        """A recorder for a new session, or one that continues an existing recording in the same file."""
        return SessionRecorder(self.path_for(session_id), session_id, cwd)

    def exists(self, session_id: str) -> bool:
        return valid_session_id(session_id) and self.path_for(session_id).is_file()

    def delete(self, session_id: str) -> bool:
        if not valid_session_id(session_id):
            return False
        try:
            self.path_for(session_id).unlink()
        except FileNotFoundError:
            return False
        return True

    def list(self, cursor: str | None = None, limit: int = 50) -> tuple[list[SessionInfo], str | None]:
        """A page of sessions, most recently updated first, and the cursor of the next page (None at the end).

        The cursor names the last session shown rather than an offset, so sessions updated while paging do
        not shift later pages onto entries already seen.
        """
        entries: list[tuple[int, str, Path]] = []
        if self.directory.is_dir():
            for path in self.directory.glob("*.jsonl"):
                sid = path.stem
                if not valid_session_id(sid):
                    continue
                try:
                    entries.append((path.stat().st_mtime_ns, sid, path))
                except FileNotFoundError:
                    continue  # deleted while we listed
        entries.sort(key=lambda e: (-e[0], e[1]))
        if cursor is not None:
            after = _decode_cursor(cursor)
            entries = [e for e in entries if (-e[0], e[1]) > (-after[0], after[1])]
        page: list[SessionInfo] = []
        used = 0
        for mtime_ns, sid, path in entries:
            used += 1
            try:
                page.append(self._summary(path, sid, mtime_ns))
            except FileNotFoundError:
                continue
            if len(page) >= max(1, limit):
                break
        more = used < len(entries)
        next_cursor = _encode_cursor(entries[used - 1][0], entries[used - 1][1]) if more and used else None
        return page, next_cursor

    def info(self, session_id: str) -> SessionInfo:
        path = self._existing(session_id)
        return self._summary(path, session_id, path.stat().st_mtime_ns)

    def load(self, session_id: str) -> LoadedSession:
        """Read a recording without modifying it: every event in order, and the last history snapshot."""
        path = self._existing(session_id)
        mtime_ns = path.stat().st_mtime_ns
        header: dict[str, Any] = {}
        events: list[AgentEvent] = []
        history: list[Content] = []
        title: str | None = None
        torn: list[int] = []
        for record in _records(path, torn):
            rtype = record.get("type")
            try:
                if rtype == "session":
                    header = record
                elif rtype == "event":
                    event = event_from_dict(record["event"])
                    events.append(event)
                    if isinstance(event, SessionTitle):
                        title = event.title
                elif rtype == "history":
                    history = _apply_snapshot(history, record, path)
                elif rtype == "title":
                    title = str(record["title"])
            except (KeyError, TypeError, ValueError, AttributeError, RecursionError, binascii.Error) as exc:
                log.warning("%s: skipping an unreadable %s record: %s", path, rtype, exc)
                torn.append(0)
        if title is None:
            first = next((e for e in events if isinstance(e, UserMessage)), None)
            title = derive_title(first.text) if first is not None else None
        prompts = sum(1 for e in events if isinstance(e, UserMessage))
        info = self._info_from(session_id, header, title, prompts, mtime_ns)
        if torn:
            log.warning("%s: %d unreadable line(s) left out (a crash mid-write leaves at most one)", path, len(torn))
        return LoadedSession(info=info, events=events, history=history, skipped=len(torn))

    def _existing(self, session_id: str) -> Path:
        if not valid_session_id(session_id):
            raise SessionNotFoundError(session_id)
        path = self.path_for(session_id)
        if not path.is_file():
            raise SessionNotFoundError(session_id)
        return path

    def _summary(self, path: Path, session_id: str, mtime_ns: int) -> SessionInfo:
        """List data without decoding history snapshots or unrelated events, which can be large."""
        header: dict[str, Any] = {}
        title: str | None = None
        first_prompt: str | None = None
        prompts = 0
        for line, last in _lines(path):
            if line.startswith(b'{"type":"history"'):
                continue
            is_title = line.startswith(b'{"type":"title"') or b'"kind":"session_title"' in line
            is_prompt = b'"kind":"user_message"' in line
            is_header = not header and line.startswith(b'{"type":"session"')
            if not (is_title or is_prompt or is_header):
                continue
            record = _parse(line, last, path)
            if record is None:
                continue
            rtype = record.get("type")
            event = record.get("event") if rtype == "event" else None
            if rtype == "session":
                header = record
            elif rtype == "title" and isinstance(record.get("title"), str):
                title = record["title"]
            elif isinstance(event, dict) and event.get("kind") == "session_title":
                title = str(event.get("title", ""))
            elif isinstance(event, dict) and event.get("kind") == "user_message":
                prompts += 1
                if first_prompt is None:
                    first_prompt = str(event.get("text", ""))
        if title is None and first_prompt is not None:
            title = derive_title(first_prompt)
        return self._info_from(session_id, header, title, prompts, mtime_ns)

    def _info_from(
        self, session_id: str, header: dict[str, Any], title: str | None, prompts: int, mtime_ns: int
    ) -> SessionInfo:
        updated = _iso_from_ns(mtime_ns)
        return SessionInfo(
            id=session_id,
            title=title,
            # A recording whose header was lost still belongs to this project.
            cwd=str(header.get("cwd") or self.project_root),
            created=str(header.get("created") or updated),
            updated=updated,
            prompt_count=prompts,
        )


def _apply_snapshot(history: list[Content], record: dict[str, Any], path: Path) -> list[Content]:
    base = int(record.get("base") or 0)
    if base > len(history):
        # Only possible if an earlier snapshot line was lost: keep what we have rather than invent turns.
        log.warning("%s: history snapshot extends %d contents but only %d were read", path, base, len(history))
        base = len(history)
    return history[:base] + [content_from_json(c) for c in record["contents"]]


def _lines(path: Path) -> Iterator[tuple[bytes, bool]]:
    """Each non-empty line with whether it is the unterminated tail of the file (a crash mid-write)."""
    with open(path, "rb") as f:
        for raw in f:
            complete = raw.endswith(b"\n")
            line = raw.strip()
            if line:
                yield line, not complete


def _parse(line: bytes, unterminated: bool, path: Path) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        record = None
    if isinstance(record, dict):
        return record
    if unterminated:
        log.debug("%s: ignoring a partly written last line", path)
    else:
        log.warning("%s: skipping a garbled line: %.80r", path, line)
    return None


def _records(path: Path, skipped: list[int] | None = None) -> Iterator[dict[str, Any]]:
    """The parsed records; the number of each line that could not be parsed is appended to ``skipped``."""
    for number, (line, last) in enumerate(_lines(path), 1):
        record = _parse(line, last, path)
        if record is not None:
            yield record
        elif skipped is not None:
            skipped.append(number)


def _encode_cursor(mtime_ns: int, session_id: str) -> str:
    return base64.urlsafe_b64encode(f"{mtime_ns}/{session_id}".encode()).decode("ascii")


def _decode_cursor(cursor: str) -> tuple[int, str]:
    try:
        stamp, _, sid = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("utf-8").partition("/")
        return int(stamp), sid
    except (ValueError, UnicodeError, binascii.Error) as exc:
        raise ValueError(f"invalid session list cursor {cursor!r}") from exc
