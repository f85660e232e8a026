"""SessionStore: one project's recordings on disk: paths, listing a page at a time, info, loading and deleting."""

from __future__ import annotations

import base64
import binascii
import json
from pathlib import Path

from agent_lsp.atomic_file import json_bytes, write_atomic
from agent_lsp.config.paths import project_state_dir
from agent_lsp.store.sessions.naming import valid_session_id
from agent_lsp.store.sessions.reading import LoadedSession, SessionInfo, read_recording, summarize
from agent_lsp.store.sessions.recorder import SessionRecorder


class SessionNotFoundError(LookupError):
    """No recording with that id in this project (or the id is not a valid session id)."""


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

    def list(
        self, cursor: str | None = None, limit: int = 50, *, prompted_only: bool = False
    ) -> tuple[list[SessionInfo], str | None]:
        """A page of sessions, most recently updated first, and the cursor of the next page (None at the end).
        ``prompted_only`` leaves out sessions nobody wrote a prompt in (a full page is still filled).

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
                info = summarize(path, sid, self.project_root, mtime_ns)
            except FileNotFoundError:
                continue
            if prompted_only and not info.prompt_count:
                continue
            page.append(info)
            if len(page) >= max(1, limit):
                break
        more = used < len(entries)
        next_cursor = _encode_cursor(entries[used - 1][0], entries[used - 1][1]) if more and used else None
        return page, next_cursor

    def fork(self, session_id: str, new_id: str, into: SessionStore | None = None) -> None:
        """A copy of a recording under a new id (its header names the new id), written whole into this store or
        ``into`` (another project's): ``session/fork``."""
        source = self._existing(session_id)
        target = (into or self).path_for(new_id)
        if target.exists():
            raise ValueError(f"session {new_id!r} exists already")
        data = source.read_bytes()
        first, newline, rest = data.partition(b"\n")
        try:
            header = json.loads(first)
        except ValueError:
            header = None
        if isinstance(header, dict) and header.get("type") == "session":
            header["id"] = new_id
            first = json_bytes(header, separators=(",", ":"))
        write_atomic(target, first + newline + rest, exclusive=True)

    def info(self, session_id: str) -> SessionInfo:
        path = self._existing(session_id)
        return summarize(path, session_id, self.project_root, path.stat().st_mtime_ns)

    def load(self, session_id: str) -> LoadedSession:
        """Read a recording without modifying it: every event in order, and the last history snapshot."""
        return read_recording(self._existing(session_id), session_id, self.project_root)

    def _existing(self, session_id: str) -> Path:
        if not valid_session_id(session_id):
            raise SessionNotFoundError(session_id)
        path = self.path_for(session_id)
        if not path.is_file():
            raise SessionNotFoundError(session_id)
        return path


def _encode_cursor(mtime_ns: int, session_id: str) -> str:
    return base64.urlsafe_b64encode(f"{mtime_ns}/{session_id}".encode()).decode("ascii")


def _decode_cursor(cursor: str) -> tuple[int, str]:
    try:
        stamp, _, sid = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("utf-8").partition("/")
        return int(stamp), sid
    except (ValueError, UnicodeError, binascii.Error) as exc:
        raise ValueError(f"invalid session list cursor {cursor!r}") from exc
