"""Permission questions to plain LSP clients: ``window/showMessageRequest`` offers the question's choices by title.

``agent/requestPermission`` is ACP's RequestPermissionRequest, built and read by adapters/permissions.py for both
front ends; this module holds only what a plain client is shown. Reject, or a choice never offered, is a no the
model hears; a dismissed question is the user's Stop.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_lsp import events as ev
from agent_lsp.adapters.lsp.messages import MESSAGE_TYPE
from agent_lsp.adapters.permissions import PermissionQuestion
from agent_lsp.core.ports import Outcome


def permission_message(details: ev.ConfirmationDetails) -> str:
    """The one-paragraph question a plain ``window/showMessageRequest`` asks."""
    if details.type == "edit":
        what = details.path or details.title
        if details.extra_diffs and details.diff is not None:  # one change to several files (rename_symbol)
            files = "\n\n".join(_short_diff(d, 10) for d in (details.diff, *details.extra_diffs))
            return f"Allow the agent to {details.title[:1].lower()}{details.title[1:]}?\n\n{files}"
        if details.diff is not None:
            old = (details.diff.old_text or "").splitlines()
            new = details.diff.new_text.splitlines()
            verb = "create" if details.diff.old_text is None else "edit"
            return f"Allow the agent to {verb} {what}? ({len(old)} → {len(new)} lines)\n\n{_short_diff(details.diff)}"
        return f"Allow the agent to edit {what}?"
    if details.type == "exec":
        return f"Allow the agent to run: {details.command}"
    if details.type == "mcp":
        return f"Allow the agent to call MCP tool {details.tool} on server {details.server}?"
    urls = " ".join(details.urls)
    return f"{details.prompt or details.title} {urls}".strip()


def _short_diff(diff: ev.FileDiff, limit: int = 30) -> str:
    lines = [ln for ln in diff.unified.splitlines() if not ln.startswith(("---", "+++"))]
    if len(lines) > limit:
        lines = [*lines[:limit], f"… ({len(lines) - limit} more lines)"]
    return "\n".join(lines)


def show_message_request(question: PermissionQuestion) -> dict[str, Any]:
    details = question.details
    return {
        "type": MESSAGE_TYPE["warning"] if details.type == "exec" else MESSAGE_TYPE["info"],
        "message": permission_message(details),
        "actions": [{"title": c.name} for c in question.offered],
    }


def outcome_from_action(response: Any, question: PermissionQuestion) -> Outcome:
    """The chosen title's outcome; Reject (or an unknown title) is a no the model hears; a dismissed question
    (null) is the user's Stop."""
    return question.outcome_of_title(response.get("title") if isinstance(response, Mapping) else None)
