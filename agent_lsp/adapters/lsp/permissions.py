"""Permission questions over LSP, in the shared vocabulary's choices (``vocabulary.permission_choices``).

``agent/requestPermission`` (ACP's RequestPermissionRequest) offers them by option id; a plain client's
``window/showMessageRequest`` offers the same choices by title. Reject, or a choice never offered, is a no the
model hears; a dismissed question is the user's Stop.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_lsp import events as ev
from agent_lsp.adapters.lsp.messages import MESSAGE_TYPE
from agent_lsp.adapters.updates import permission_tool_call
from agent_lsp.core.ports import Outcome
from agent_lsp.vocabulary import outcome_for, permission_choices


def permission_options(details: ev.ConfirmationDetails) -> list[dict[str, Any]]:
    """ACP PermissionOptions, Gemini CLI's option ids."""
    return [{"optionId": c.option_id, "name": c.name, "kind": c.kind} for c in permission_choices(details)]


def permission_request(session_id: str, call: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> dict[str, Any]:
    """``agent/requestPermission`` params: ACP's RequestPermissionRequest, the diff in ``toolCall.content``."""
    return {
        "sessionId": session_id,
        "toolCall": permission_tool_call(call, details),
        "options": permission_options(details),
    }


def outcome_from_permission(response: Any, details: ev.ConfirmationDetails) -> Outcome:
    """The Confirmer outcome for an ``agent/requestPermission`` answer: ``cancelled`` (or no answer) is the
    user's Stop; Reject, or an option we never offered, is a no the model hears."""
    if not isinstance(response, Mapping):
        return "cancel"
    outcome = response.get("outcome")
    if not isinstance(outcome, Mapping) or outcome.get("outcome") != "selected":
        return "cancel"
    return outcome_for(outcome.get("optionId"), permission_choices(details))


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


def show_message_request(details: ev.ConfirmationDetails) -> dict[str, Any]:
    return {
        "type": MESSAGE_TYPE["warning"] if details.type == "exec" else MESSAGE_TYPE["info"],
        "message": permission_message(details),
        "actions": [{"title": c.name} for c in permission_choices(details)],
    }


def outcome_from_action(response: Any, details: ev.ConfirmationDetails) -> Outcome:
    """The chosen title's outcome; Reject (or an unknown title) is a no the model hears; a dismissed question
    (null) is the user's Stop."""
    title = response.get("title") if isinstance(response, Mapping) else None
    if not isinstance(title, str):
        return "cancel"
    offered = permission_choices(details)
    chosen = next((c.option_id for c in offered if c.name == title), None)
    return outcome_for(chosen, offered)
