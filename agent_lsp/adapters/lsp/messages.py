"""``window/showMessage`` payloads: message types and notices in words a person reads."""

from __future__ import annotations

from typing import Any

from agent_lsp import events as ev

MESSAGE_TYPE = {"error": 1, "warning": 2, "info": 3, "log": 4}


def show_message(level: str, message: str) -> dict[str, Any]:
    return {"type": MESSAGE_TYPE[level], "message": message}


def notice_message(notice: ev.Notice) -> dict[str, Any]:
    return {"type": MESSAGE_TYPE[notice.level], "message": f"Agent: {notice.message}"}
