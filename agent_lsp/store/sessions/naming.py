"""Session ids (which become file names) and the short titles derived from a session's first prompt."""

from __future__ import annotations

import re
import uuid

from agent_lsp.titles import TITLE_MAX, derive_title

__all__ = ["TITLE_MAX", "derive_title", "new_session_id", "valid_session_id"]

_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def new_session_id() -> str:
    return uuid.uuid4().hex


def valid_session_id(session_id: str) -> bool:
    """Ids become file names, so only a conservative alphabet is accepted (no separators, no leading dot)."""
    return bool(_ID_RE.fullmatch(session_id))
