"""Session recording to per-project JSONL files, and listing, loading and deleting them for resume."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lsp.lazy import exports

if TYPE_CHECKING:
    from agent_lsp.store.sessions.naming import TITLE_MAX, derive_title, new_session_id, valid_session_id
    from agent_lsp.store.sessions.reading import LoadedSession, SessionInfo
    from agent_lsp.store.sessions.recorder import FORMAT_VERSION, TEXT_FLUSH_S, SessionRecorder
    from agent_lsp.store.sessions.store import SessionNotFoundError, SessionStore

# The package is split by job (naming, the recorder, reading back, the store); the names callers use stay
# importable from here, each loaded on first use, so choosing a session id does not load the recorder and store.
__getattr__ = exports(
    __name__,
    {
        "FORMAT_VERSION": "recorder",
        "TEXT_FLUSH_S": "recorder",
        "TITLE_MAX": "naming",
        "LoadedSession": "reading",
        "SessionInfo": "reading",
        "SessionNotFoundError": "store",
        "SessionRecorder": "recorder",
        "SessionStore": "store",
        "derive_title": "naming",
        "new_session_id": "naming",
        "valid_session_id": "naming",
    },
)

__all__ = [
    "FORMAT_VERSION",
    "TEXT_FLUSH_S",
    "TITLE_MAX",
    "LoadedSession",
    "SessionInfo",
    "SessionNotFoundError",
    "SessionRecorder",
    "SessionStore",
    "derive_title",
    "new_session_id",
    "valid_session_id",
]
