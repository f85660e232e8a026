"""Session recording to per-project JSONL files, and listing, loading and deleting them for resume."""

# The package is split by job (naming, the recorder, reading back, the store); the names callers use stay
# importable from here.
from agent_lsp.store.sessions.naming import TITLE_MAX, derive_title, new_session_id, valid_session_id
from agent_lsp.store.sessions.reading import LoadedSession, SessionInfo
from agent_lsp.store.sessions.recorder import FORMAT_VERSION, TEXT_FLUSH_S, SessionRecorder
from agent_lsp.store.sessions.store import SessionNotFoundError, SessionStore

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
