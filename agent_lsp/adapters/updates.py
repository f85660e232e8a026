"""Pure converters from AgentEvents to ACP ``session/update`` payloads (LSP's ``agent/update`` reuses them).

No I/O and no protocol library: plain dicts in the ACP v1 JSON shapes, so one family of functions
serves both adapters and is tested against the ACP JSON schema. The only state (accumulated live
output per tool call, the context window size) is passed in and returned, never hidden.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from agent_lsp import events as ev
from agent_lsp.model.prices import CURRENCY
from agent_lsp.wording import said

Update = dict[str, Any]
MAX_LIVE_OUTPUT = 20_000  # characters of live shell output re-sent with each update (the tail)

_STATUS = {"success": "completed", "error": "failed", "cancelled": "failed"}
SUBAGENT_TOOL = "invoke_agent"  # its live output is the subagent's steps; editors fold them (docs/protocol.md)
_PLAN_STATUS = {
    "pending": "pending",
    "in_progress": "in_progress",
    "completed": "completed",
    "cancelled": "completed",
    "blocked": "pending",
}


@dataclass(frozen=True)
class UpdateState:
    """What conversion remembers between events of one session."""

    context_size: int = 1_048_576
    live_output: Mapping[str, str] = field(default_factory=dict)
    notices_supported: bool = False  # the client advertised session.notices


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def diff_content(diff: ev.FileDiff) -> dict[str, Any]:
    return {"type": "diff", "path": diff.path, "oldText": diff.old_text, "newText": diff.new_text}


def locations(locs: tuple[ev.Location, ...]) -> list[dict[str, Any]]:
    return [{"path": loc.path, **({"line": loc.line} if loc.line is not None else {})} for loc in locs]


def tool_call(call: ev.ToolCallInfo, status: str = "pending") -> Update:
    update: Update = {
        "sessionUpdate": "tool_call",
        "toolCallId": call.call_id,
        "title": call.title or call.name,
        "kind": call.kind,
        "status": status,
        "locations": locations(call.locations),
        "rawInput": call.args,
    }
    if call.name == SUBAGENT_TOOL:
        # Marks the call as a subagent's, so an editor can fold its steps (the first content block) under it.
        update["_meta"] = {"agent-lsp": {"subagent": str(call.args.get("agent_name", ""))}}
    return update


def confirmation_content(details: ev.ConfirmationDetails) -> list[dict[str, Any]]:
    """What a permission request shows: the diff for edits, the command for exec, args for MCP."""
    if details.diff is not None:
        return [diff_content(details.diff)]
    if details.type == "exec" and details.command:
        return [{"type": "content", "content": text_block(f"```sh\n{details.command}\n```")}]
    if details.type == "mcp":
        return [{"type": "content", "content": text_block(f"MCP tool `{details.tool}` on server `{details.server}`")}]
    if details.type == "info":
        urls = "\n".join(f"- {u}" for u in details.urls)
        return [{"type": "content", "content": text_block(f"{details.prompt or details.title}\n{urls}".strip())}]
    return []


def permission_tool_call(call: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> dict[str, Any]:
    """The ``toolCall`` of a permission request: carries the diff itself (CodeCompanion needs it there)."""
    return {
        "toolCallId": call.call_id,
        "title": call.title or details.title,
        "kind": call.kind,
        "status": "pending",
        "locations": locations(call.locations),
        "rawInput": call.args,
        "content": confirmation_content(details),
    }


def _message(text: str) -> Update:
    return {"sessionUpdate": "agent_message_chunk", "content": text_block(text)}


_NOTICE_MARK = {"info": "ℹ️", "warning": "⚠️", "error": "❌"}


def _notice(level: str, text: str, state: UpdateState) -> Update:
    """A ``notice`` update for a client that shows them; else a quoted, marked paragraph of its own, so it never
    reads as the model's words."""
    if state.notices_supported:
        return {"sessionUpdate": "notice", "severity": level, "title": text}
    return _message(f"\n\n> {_NOTICE_MARK.get(level, '⚠️')} {text}\n\n")


def to_updates(event: ev.AgentEvent, state: UpdateState, *, replay: bool = False) -> tuple[list[Update], UpdateState]:
    """The updates to send for an event, and the state after it. ``replay``: redrawing a loaded session,
    so the user's own messages are included (live, the client already shows them)."""
    match event:
        case ev.UserMessage(text=text):
            return ([{"sessionUpdate": "user_message_chunk", "content": text_block(text)}] if replay else []), state
        case ev.Content(text=text):
            return [_message(text)], state
        case ev.Thought(subject=subject, description=description):
            text = f"**{subject}**\n\n{description}" if subject else description
            return [{"sessionUpdate": "agent_thought_chunk", "content": text_block(text)}], state
        case ev.ToolCallRequest(call=call):
            return [tool_call(call)], state
        case ev.ToolCallConfirmation(call=call, details=details):
            shown = confirmation_content(details)
            if not shown:
                return [], state
            return [{"sessionUpdate": "tool_call_update", "toolCallId": call.call_id, "content": shown}], state
        case ev.ToolCallStatusChange(call_id=call_id, status="executing"):
            return [{"sessionUpdate": "tool_call_update", "toolCallId": call_id, "status": "in_progress"}], state
        case ev.ToolOutput(call_id=call_id, chunk=chunk):
            output = (state.live_output.get(call_id, "") + chunk)[-MAX_LIVE_OUTPUT:]
            new_state = replace(state, live_output={**state.live_output, call_id: output})
            update = {
                "sessionUpdate": "tool_call_update",
                "toolCallId": call_id,
                "status": "in_progress",
                "content": [{"type": "content", "content": text_block(f"```\n{output}\n```")}],
            }
            return [update], new_state
        case ev.ToolCallResponse(call_id=call_id, status=status, display=display, diff=diff, error=error):
            content: list[dict[str, Any]] = []
            if diff is not None:
                content.append(diff_content(diff))
            live = state.live_output.get(call_id)
            if live or event.name == SUBAGENT_TOOL:  # a subagent's steps are always its first block, maybe empty
                content.append({"type": "content", "content": text_block(f"```\n{live or ''}\n```")})
            message = error or display
            # A shell's live output is its result already; a subagent's is its steps, and its report comes after.
            if message and (not live or event.name == SUBAGENT_TOOL):
                content.append({"type": "content", "content": text_block(message)})
            update = {
                "sessionUpdate": "tool_call_update",
                "toolCallId": call_id,
                "status": _STATUS[status],
                "content": content,
            }
            if event.locations:
                update["locations"] = locations(event.locations)
            rest = {k: v for k, v in state.live_output.items() if k != call_id}
            return [update], replace(state, live_output=rest)
        case ev.Plan(entries=entries):
            return [
                {
                    "sessionUpdate": "plan",
                    "entries": [
                        {"content": e.content, "priority": "medium", "status": _PLAN_STATUS[e.status]} for e in entries
                    ],
                }
            ], state
        case ev.Finished(usage=usage) if usage is not None and usage.prompt_tokens:
            used = usage.prompt_tokens + usage.candidates_tokens
            usage_update: Update = {"sessionUpdate": "usage_update", "used": used, "size": state.context_size}
            if event.cost is not None:
                usage_update["cost"] = {"amount": round(event.cost, 6), "currency": CURRENCY}
            return [usage_update], state
        case ev.SessionTitle(title=title):
            return [{"sessionUpdate": "session_info_update", "title": title}], state
        case ev.ModeChanged(mode=mode):
            # The model switched modes (enter_plan_mode): shown as if the user had picked it. Not when a loaded
            # session is redrawn: it opens in its own mode, whatever an old prompt switched to.
            return ([] if replay else [{"sessionUpdate": "current_mode_update", "currentModeId": mode}]), state
        case (
            ev.Notice()
            | ev.Retry()
            | ev.ModelFallback()
            | ev.ChatCompressed()
            | ev.LoopDetected()
            | ev.InvalidStream()
            | ev.MaxSessionTurns()
            | ev.ContextWindowWillOverflow()
        ):
            told = said(event)
            return ([_notice(told.level, told.text, state)] if told is not None else []), state
    return [], state


def edited_proposal(answer: Any, details: ev.ConfirmationDetails) -> str | None:
    """The user's edited version of a proposed file change, when an editor sent one back with its approval.

    The permission answer has no field for it, so our editors put it in ``_meta.modifiedContent`` (on the
    answer or on its ``outcome``); it only applies to edit proposals."""
    if details.type != "edit" or not isinstance(answer, Mapping):
        return None
    for holder in (answer, answer.get("outcome")):
        meta = holder.get("_meta") if isinstance(holder, Mapping) else None
        if isinstance(meta, Mapping) and isinstance(meta.get("modifiedContent"), str):
            text: str = meta["modifiedContent"]
            return text
    return None
