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
    compaction_supported: bool = False  # the client advertised session.compaction (LSP: always)
    subagents_supported: bool = False  # the client advertised subagents (LSP: experimental.agent.subagents)
    children: Mapping[str, bool] = field(default_factory=dict)  # announced child session → running
    subagent_calls: frozenset[str] = frozenset()  # invoke_agent calls: their steps are drawn as child sessions
    used: int = 0  # tokens in context after the last response (the prompt's closing usage_update repeats it)
    counted: int = 0  # model requests the last usage_update counted


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
        return [diff_content(d) for d in (details.diff, *details.extra_diffs)]
    if details.type == "exec" and details.command:
        return [{"type": "content", "content": text_block(f"```sh\n{details.command}\n```")}]
    if details.type == "mcp":
        return [{"type": "content", "content": text_block(f"MCP tool `{details.tool}` on server `{details.server}`")}]
    if details.type == "info":
        urls = "\n".join(f"- {u}" for u in details.urls)
        return [{"type": "content", "content": text_block(f"{details.prompt or details.title}\n{urls}".strip())}]
    return []


def permission_tool_call(call: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> dict[str, Any]:
    """The ``toolCall`` of a permission request: carries the diff itself (CodeCompanion needs it there); a
    subagent's call says whose it is (``_meta["agent-lsp"].subagent``)."""
    shown: dict[str, Any] = {
        "toolCallId": call.call_id,
        "title": call.title or details.title,
        "kind": call.kind,
        "status": "pending",
        "locations": locations(call.locations),
        "rawInput": call.args,
        "content": confirmation_content(details),
    }
    if call.origin is not None:
        shown["_meta"] = {"agent-lsp": {"subagent": subagent_meta(call.origin)}}
    return shown


def _message(text: str) -> Update:
    return {"sessionUpdate": "agent_message_chunk", "content": text_block(text)}


def _chunk(update: str, text: str, message_id: str) -> Update:
    """A message chunk; every chunk of one message carries its id (absent only in recordings older than ids)."""
    out: Update = {"sessionUpdate": update, "content": text_block(text)}
    if message_id:
        out["messageId"] = message_id
    return out


def _compaction(event: ev.Compaction, state: UpdateState) -> list[Update]:
    """ACP's compaction lifecycle for a client that draws it; else what we always said: the ``chat_compressed``
    notice for a done one, a warning for a failed one."""
    if not state.compaction_supported:
        return [_notice("warning", event.error, state)] if event.status == "failed" else []
    update: Update = {"sessionUpdate": "compaction_update", "compactionId": event.compaction_id, "status": event.status}
    ours: dict[str, Any] = {"trigger": event.trigger}
    if event.status == "completed":
        update["summary"] = [text_block(event.summary)] if event.summary else []
        ours.update(tokensBefore=event.tokens_before, tokensAfter=event.tokens_after)
    elif event.status == "failed":
        update["error"] = event.error
    update["_meta"] = {"agent-lsp": ours}
    return [update]


_NOTICE_MARK = {"info": "ℹ️", "warning": "⚠️", "error": "❌"}


def _notice(level: str, text: str, state: UpdateState) -> Update:
    """A ``notice`` update for a client that shows them; else a quoted, marked paragraph of its own, so it never
    reads as the model's words."""
    if state.notices_supported:
        return {"sessionUpdate": "notice", "severity": level, "title": text}
    return _message(f"\n\n> {_NOTICE_MARK.get(level, '⚠️')} {text}\n\n")


def usage_update(used: int, state: UpdateState, session: ev.UsageTotals | None, turn: ev.UsageTotals | None) -> Update:
    """ACP's UsageUpdate: the context's fill, the session's estimated cost (every model call made for it), and in
    ``_meta["agent-lsp"]`` the session's and the running prompt's tokens and cost, by model (docs/protocol.md)."""
    update: Update = {"sessionUpdate": "usage_update", "used": used, "size": state.context_size}
    cost = session.cost if session is not None else None
    if cost is not None:
        update["cost"] = {"amount": round(cost, 6), "currency": CURRENCY}
    if session is not None:
        ours: dict[str, Any] = {"session": usage_totals(session)}
        if turn is not None:
            ours["turn"] = usage_totals(turn)
        update["_meta"] = {"agent-lsp": ours}
    return update


def usage_totals(totals: ev.UsageTotals) -> dict[str, Any]:
    """Totals as JSON: summed counts and cost (null when a model's price is unknown), then each model's."""
    return {
        **_usage_json(totals.requests, totals.usage, totals.cost),
        "byModel": [{"model": m.model, **_usage_json(m.requests, m.usage, m.cost)} for m in totals.by_model],
    }


def _usage_json(requests: int, usage: ev.Usage, cost: float | None) -> dict[str, Any]:
    return {
        "requests": requests,
        "inputTokens": usage.prompt_tokens,
        "outputTokens": usage.candidates_tokens,
        "thoughtTokens": usage.thoughts_tokens,
        "cachedReadTokens": usage.cached_tokens,
        "totalTokens": usage.total_tokens,
        "cost": round(cost, 6) if cost is not None else None,
    }


def to_updates(event: ev.AgentEvent, state: UpdateState, *, replay: bool = False) -> tuple[list[Update], UpdateState]:
    """The updates to send for an event, and the state after it. ``replay``: redrawing a loaded session,
    so the user's own messages are included (live, the client already shows them)."""
    match event:
        case ev.UserMessage(text=text, message_id=message_id):
            if not replay:
                return [], state
            chunk = _chunk("user_message_chunk", text, message_id)
            if event.steered:  # sent into a running turn: a front end may say so where it went in
                chunk["_meta"] = {"agent-lsp": {"steered": True}}
            return [chunk], state
        case ev.Content(compaction_id=compaction_id) if compaction_id and state.compaction_supported:
            return [], state  # the text reports a compaction the client draws as an item
        case ev.Content(text=text, message_id=message_id):
            return [_chunk("agent_message_chunk", text, message_id)], state
        case ev.Thought(subject=subject, description=description, message_id=message_id):
            text = f"**{subject}**\n\n{description}" if subject else description
            return [_chunk("agent_thought_chunk", text, message_id)], state
        case ev.SubagentEvent():
            return subagent_updates(event, state, replay=replay)
        case ev.Compaction():
            return _compaction(event, state), state
        case ev.ToolCallRequest(call=call):
            if call.name == SUBAGENT_TOOL and state.subagents_supported:
                state = replace(state, subagent_calls=state.subagent_calls | {call.call_id})
            return [tool_call(call)], state
        case ev.ToolCallConfirmation(call=call, details=details):
            shown = confirmation_content(details)
            if not shown:
                return [], state
            return [{"sessionUpdate": "tool_call_update", "toolCallId": call.call_id, "content": shown}], state
        case ev.ToolCallStatusChange(call_id=call_id, status="executing"):
            return [{"sessionUpdate": "tool_call_update", "toolCallId": call_id, "status": "in_progress"}], state
        case ev.ToolOutput(call_id=call_id) if call_id in state.subagent_calls:
            return [], state  # the subagent's steps are drawn in its child session instead
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
                content += [diff_content(d) for d in (diff, *event.extra_diffs)]
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
            counted = event.session_usage.requests if event.session_usage is not None else 0
            update = usage_update(used, state, event.session_usage, event.turn_usage)
            return [update], replace(state, used=used, counted=counted)
        case ev.ContextUsage(used=used, size=size, session_usage=totals):
            # Estimated outside a prompt (rewind, undo, fork, model switch): marked so, and the new fill and window
            # are what the prompt's closing usage_update repeats.
            state = replace(state, context_size=size, used=used)
            estimate = usage_update(used, state, totals, None)
            ours = estimate.get("_meta", {}).get("agent-lsp", {})
            estimate["_meta"] = {"agent-lsp": {**ours, "estimated": True}}
            return [estimate], replace(state, counted=totals.requests if totals is not None else state.counted)
        case ev.Stop(session_usage=totals) if totals is not None and totals.requests != state.counted and not replay:
            # Calls made after the prompt's last response (a /compress, a failed turn's retries) are shown too.
            update = usage_update(state.used, state, totals, event.turn_usage)
            return [update], replace(state, counted=totals.requests)
        case ev.SessionTitle(title=title):
            return [{"sessionUpdate": "session_info_update", "title": title}], state
        case ev.ModeChanged(mode=mode):
            # The model switched modes (enter_plan_mode): shown as if the user had picked it. Not when a loaded
            # session is redrawn: it opens in its own mode, whatever an old prompt switched to.
            return ([] if replay else [{"sessionUpdate": "current_mode_update", "currentModeId": mode}]), state
        case ev.ChatCompressed() if state.compaction_supported:
            return [], state  # the client draws the compaction from its own events
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


def subagent_meta(origin: ev.Origin) -> dict[str, Any]:
    """``_meta["agent-lsp"].subagent`` of a subagent's update: whose call it runs under, which agent, which child."""
    return {"parentToolCallId": origin.parent_call_id, "agent": origin.agent, "childSessionId": origin.child_session_id}


def subagent_updates(
    event: ev.SubagentEvent, state: UpdateState, *, replay: bool = False
) -> tuple[list[Update], UpdateState]:
    """A subagent's event, for a client that shows subagents: its updates as the child session's, each marked
    with its origin (an ACP front end sends them under the child's id), the child announced (``subagent_update``
    on the parent, running) before its first one and reported idle at its Stop. Otherwise nothing: the
    invoke_agent call's folded steps say it."""
    if not state.subagents_supported:
        return [], state
    origin, inner = event.origin, event.event
    child = origin.child_session_id
    meta = {"agent-lsp": {"subagent": subagent_meta(origin)}}
    out: list[Update] = []
    if isinstance(inner, ev.Stop):
        idle: Update = {"sessionUpdate": "subagent_update", "sessionId": child, "_meta": meta}
        idle["state"] = {"state": "idle", "stopReason": inner.reason}
        return [idle], replace(state, children={**state.children, child: False})
    if isinstance(inner, ev.ModeChanged | ev.SubagentEvent):
        return [], state
    if not state.children.get(child, False):
        announce: Update = {"sessionUpdate": "subagent_update", "sessionId": child, "state": {"state": "running"}}
        if child not in state.children:
            announce["title"] = origin.agent
            if isinstance(inner, ev.UserMessage):
                announce["description"] = inner.text.strip().splitlines()[0][:200] if inner.text.strip() else None
        announce["_meta"] = meta
        out.append(announce)
        state = replace(state, children={**state.children, child: True})
    # The child's own messages are the agent's, never typed in the editor: drawn live too.
    updates, after = to_updates(inner, state, replay=replay or isinstance(inner, ev.UserMessage))
    # A child's usage_update is the child's (its context, its run's share as "turn"): the parent's own context
    # fill and what its last usage_update counted stay as they were.
    state = replace(after, used=state.used, counted=state.counted)
    for update in updates:
        ours = {**update.get("_meta", {}).get("agent-lsp", {}), "subagent": subagent_meta(origin)}
        out.append({**update, "_meta": {**update.get("_meta", {}), "agent-lsp": ours}})
    return out, state


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
