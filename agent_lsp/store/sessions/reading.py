"""Reading a recording back: whole for resume, or just its summary for a list; damaged lines are skipped."""

from __future__ import annotations

import binascii
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent_lsp.event_json import event_from_dict
from agent_lsp.events import AgentEvent, SessionTitle, UserMessage
from agent_lsp.model.base import Content
from agent_lsp.model.wire import content_from_json
from agent_lsp.store.sessions.naming import derive_title

log = logging.getLogger(__name__)


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


def read_recording(path: Path, session_id: str, project_root: Path) -> LoadedSession:
    """Read a recording without modifying it: every event in order, and the last history snapshot."""
    mtime_ns = path.stat().st_mtime_ns
    header: dict[str, Any] = {}
    events: list[AgentEvent] = []
    history: list[Content] = []
    title: str | None = None
    torn: list[int] = []
    cut: list[list[AgentEvent]] = []  # what the last rewind dropped, put back if it was undone
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
            elif rtype == "rewind":
                at = _user_message_at(events, int(record["message"]))
                cut = [events[at:]]
                del events[at:]
            elif rtype == "rewind_undone" and cut:
                events.extend(cut.pop())
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError, binascii.Error) as exc:
            log.warning("%s: skipping an unreadable %s record: %s", path, rtype, exc)
            torn.append(0)
    if title is None:
        first = next((e for e in events if isinstance(e, UserMessage)), None)
        title = derive_title(first.text) if first is not None else None
    prompts = sum(1 for e in events if isinstance(e, UserMessage))
    info = info_from(session_id, project_root, header, title, prompts, mtime_ns)
    if torn:
        log.warning("%s: %d unreadable line(s) left out (a crash mid-write leaves at most one)", path, len(torn))
    return LoadedSession(info=info, events=events, history=history, skipped=len(torn))


def _user_message_at(events: list[AgentEvent], index: int) -> int:
    """Where the ``index``-th user message is in ``events`` (the end when there are fewer)."""
    seen = 0
    for at, event in enumerate(events):
        if isinstance(event, UserMessage):
            if seen == index:
                return at
            seen += 1
    return len(events)


def summarize(path: Path, session_id: str, project_root: Path, mtime_ns: int) -> SessionInfo:
    """List data without decoding history snapshots or unrelated events, which can be large."""
    header: dict[str, Any] = {}
    title: str | None = None
    first_prompt: str | None = None
    prompts = 0
    undone: list[int] = []
    for line, last in _lines(path):
        if line.startswith(b'{"type":"history"'):
            continue
        is_title = line.startswith(b'{"type":"title"') or b'"kind":"session_title"' in line
        is_prompt = b'"kind":"user_message"' in line
        is_header = not header and line.startswith(b'{"type":"session"')
        if line.startswith(b'{"type":"rewind"'):
            # The count follows a rewind (and its undo): the prompts from the cut on are not the session's.
            record = _parse(line, last, path)
            if record is not None and record.get("type") == "rewind" and isinstance(record.get("message"), int):
                undone.append(prompts - min(prompts, record["message"]))
                prompts = min(prompts, record["message"])
            elif record is not None and undone:
                prompts += undone.pop()
            continue
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
    return info_from(session_id, project_root, header, title, prompts, mtime_ns)


def info_from(
    session_id: str, project_root: Path, header: dict[str, Any], title: str | None, prompts: int, mtime_ns: int
) -> SessionInfo:
    updated = _iso_from_ns(mtime_ns)
    return SessionInfo(
        id=session_id,
        title=title,
        # A recording whose header was lost still belongs to this project.
        cwd=str(header.get("cwd") or project_root),
        created=str(header.get("created") or updated),
        updated=updated,
        prompt_count=prompts,
    )


def _iso_from_ns(ns: int) -> str:
    return datetime.fromtimestamp(ns / 1e9, UTC).isoformat(timespec="milliseconds")


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
