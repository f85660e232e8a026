"""Checkpoint records: one JSON file per checkpoint (commit, tool call, history), written whole or not at all."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from agent_lsp.atomic_file import json_bytes, write_atomic
from agent_lsp.errors import AgentError
from agent_lsp.events import ToolCallInfo
from agent_lsp.model.base import Content
from agent_lsp.model.wire import content_to_json

log = logging.getLogger(__name__)

_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,200}")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
AFTER_SUFFIX = ".after"  # beside <id>.json: not a checkpoint of its own, so list() never sees it
ROOTS_SUFFIX = ".roots"  # beside <id>.json: the other roots' checkpoints taken before the same call
_PATH_ARGS = ("file_path", "absolute_path", "path", "notebook_path", "dir_path", "directory", "source")


class CheckpointError(AgentError):
    """A checkpoint could not be taken or restored; the message is for a person."""


class CheckpointsUnavailable(CheckpointError):
    """git is missing or unusable, so checkpointing is off. Raised once by ``before_tool`` (a Notice), then silent."""


@dataclass(frozen=True)
class CheckpointInfo:
    id: str
    tool_name: str
    file: str | None
    created: str  # ISO 8601, UTC


class CheckpointRecords:
    """The ``checkpoints`` folder of one project's state dir: saving, listing and reading records."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def write(self, record: dict[str, Any], created: datetime, file: str | None, tool: str) -> str:
        self.directory.mkdir(parents=True, exist_ok=True)
        stamp = created.strftime("%Y-%m-%dT%H-%M-%S-%f")[:-3] + "Z"  # no colons: valid file names everywhere
        stem = f"{stamp}-{_safe(Path(file).name if file else 'none')}-{_safe(tool)}"
        cid, n = stem, 1
        while True:
            record["id"] = cid
            # Serialised before the name is claimed, so an argument JSON cannot hold never leaves half a file.
            data = json_bytes(record, default=repr)
            try:
                # Written whole to a temp file and published under a name no other checkpoint has (two in one
                # millisecond both survive): a kill at any point leaves the record complete or absent.
                write_atomic(self.directory / f"{cid}.json", data, exclusive=True, sweep=True)
                return cid
            except FileExistsError:
                n += 1
                cid = f"{stem}-{n}"

    def write_after(self, checkpoint_id: str, after: dict[str, Any]) -> None:
        """The small record of a call that ran: its call id and the commits before and after it (rewind reads
        these, never the big history records)."""
        write_atomic(self.directory / f"{checkpoint_id}{AFTER_SUFFIX}", json_bytes(after))

    def write_roots(self, checkpoint_id: str, roots: Mapping[str, str]) -> None:
        """Name each extra root's checkpoint taken before the same call (root path -> its checkpoint id), so a
        /restore of this checkpoint can put those roots back too."""
        write_atomic(self.directory / f"{checkpoint_id}{ROOTS_SUFFIX}", json_bytes(dict(roots)))

    def roots(self, checkpoint_id: str) -> dict[str, str]:
        """The extra roots' checkpoints linked to this one; none for a checkpoint taken with no extra root."""
        if not _ID_RE.fullmatch(checkpoint_id):
            return {}
        data = _read_json(self.directory / f"{checkpoint_id}{ROOTS_SUFFIX}") or {}
        return {k: v for k, v in data.items() if isinstance(v, str) and _ID_RE.fullmatch(v)}

    def afters(self, session_id: str) -> dict[str, list[dict[str, str]]]:
        """One session's calls' before/after commits, by call id, oldest first (a model may reuse an id)."""
        found: dict[str, list[dict[str, str]]] = {}
        if not self.directory.is_dir():
            return found
        for path in sorted(self.directory.glob(f"*{AFTER_SUFFIX}")):  # names start with the time taken
            data = _read_json(path)
            if data is None or data.get("session_id") != session_id:
                continue
            values = {k: data.get(k) for k in ("call_id", "before", "after")}
            if all(isinstance(v, str) and v for v in values.values()):
                found.setdefault(str(values["call_id"]), []).append({k: str(v) for k, v in values.items()})
        return found

    def fork_afters(self, session_id: str, new_id: str) -> int:
        """Copy one session's after-records for a fork (``session/fork``), so its rewinds find the same calls."""
        copied = 0
        for path in sorted(self.directory.glob(f"*{AFTER_SUFFIX}")) if self.directory.is_dir() else []:
            data = _read_json(path)
            if data is None or data.get("session_id") != session_id:
                continue
            stem = path.name.removesuffix(AFTER_SUFFIX)
            write_atomic(
                self.directory / f"{stem}.{_safe(new_id)}{AFTER_SUFFIX}", json_bytes({**data, "session_id": new_id})
            )
            copied += 1
        return copied

    def list(self) -> list[CheckpointInfo]:
        """Every saved checkpoint, oldest first."""
        found: list[CheckpointInfo] = []
        if not self.directory.is_dir():
            return found
        for path in self.directory.glob("*.json"):
            data = _read_json(path)
            if data is None:
                continue
            call = call_of(data)
            found.append(
                CheckpointInfo(
                    id=path.stem,
                    tool_name=str(call.get("name", "")),
                    file=data.get("file") if isinstance(data.get("file"), str) else None,
                    created=str(data.get("created", "")),
                )
            )
        found.sort(key=lambda c: (c.created, c.id))
        return found

    def load(self, checkpoint_id: str) -> dict[str, Any]:
        # The id becomes a file name, so it is checked before it touches the file system.
        if not _ID_RE.fullmatch(checkpoint_id):
            raise CheckpointError(f"No checkpoint named {checkpoint_id!r}.")
        data = _read_json(self.directory / f"{checkpoint_id}.json")
        if data is None:
            raise CheckpointError(f"No checkpoint named {checkpoint_id!r}.")
        return data


def main_path(call: ToolCallInfo) -> str | None:
    """The file a tool call is mainly about: its first location, else the first path-like argument."""
    if call.locations:
        return call.locations[0].path
    for key in _PATH_ARGS:
        value = call.args.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def history_json(history: Sequence[object]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in history:
        if isinstance(item, Content):
            out.append(content_to_json(item))
        elif isinstance(item, Mapping):
            out.append(dict(item))  # already wire JSON
        else:
            log.warning("checkpoint history: skipping a %s that is not a Content", type(item).__name__)
    return out


def call_of(data: dict[str, Any]) -> dict[str, Any]:
    call = data.get("tool_call")
    return dict(call) if isinstance(call, dict) else {}


def _safe(name: str) -> str:
    return _UNSAFE.sub("_", name).strip("._")[:40] or "none"


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, RecursionError) as exc:
        # A checkpoint torn by a crash in an older version, or damaged by hand: left out, never fatal.
        log.warning("skipping unreadable checkpoint %s: %s", path, exc)
        return None
    return data if isinstance(data, dict) else None
