"""Pure payload builders for the LSP adapter: progress, permission questions, prompts, code actions.

Plain dicts in LSP / ACP JSON shapes, no protocol library, so each is unit-tested on its own. The
``session/update`` payloads themselves come from agent_lsp.adapters.updates (one converter for both adapters).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_lsp import events as ev
from agent_lsp.adapters.lsp.capabilities import CMD_EDIT_SELECTION, CMD_EXPLAIN, CMD_FIX
from agent_lsp.adapters.lsp.documents import uri_to_path
from agent_lsp.adapters.updates import permission_tool_call
from agent_lsp.core.ports import Outcome
from agent_lsp.model.base import InlineData, Part

# --- progress -------------------------------------------------------------------------------------------

TITLE_LIMIT = 48
STOP_MESSAGES = {
    "end_turn": "Done",
    "max_tokens": "Stopped: the response hit the token limit",
    "max_turn_requests": "Stopped: too many turns",
    "refusal": "The model refused",
    "cancelled": "Cancelled",
    "error": "Failed",
}


SUMMARY_LIMIT = 100


def _one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line[: limit - 1].rstrip() + "…" if len(line) > limit else line


def progress_title(prompt_text: str) -> str:
    line = _one_line(prompt_text, TITLE_LIMIT)
    return f"Agent: {line}" if line else "Agent"


def progress_begin(title: str, message: str = "Thinking…") -> dict[str, Any]:
    return {"kind": "begin", "title": title, "cancellable": True, "message": message}


def progress_report(message: str) -> dict[str, Any]:
    return {"kind": "report", "message": message, "cancellable": True}


def progress_end(reason: str, answer: str = "") -> dict[str, Any]:
    """The end of a turn; a finished one carries the start of the answer (some clients show nothing else)."""
    message = STOP_MESSAGES.get(reason, reason)
    if reason == "end_turn" and answer.strip():
        message = f"{message}: {_one_line(answer, SUMMARY_LIMIT)}"
    return {"kind": "end", "message": message}


def progress_summary(request: str) -> str:
    """The begin message: what the agent is working on, in one line (a client may show only messages)."""
    line = _one_line(request, SUMMARY_LIMIT)
    return f"Working on: {line}" if line else "Thinking…"


@dataclass
class ProgressTracker:
    """Turns the event stream into short, self-contained progress messages ("Running replace: Edit a.py")."""

    batch: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)
    _closed: bool = True
    _writing: bool = False

    def message(self, event: ev.AgentEvent) -> str | None:
        match event:
            case ev.Thought(subject=subject) if subject:
                return f"Thinking: {subject}"
            case ev.Content(text=text) if text.strip() and not self._writing:
                self._writing = True
                return "Writing the answer…"
            case ev.ToolCallRequest(call=call):
                if self._closed:
                    self.batch, self._closed = [], False
                self.batch.append(call.call_id)
                self.names[call.call_id] = call.name
                self.titles[call.call_id] = call.title or call.name
                return None
            case ev.ToolCallStatusChange(call_id=call_id, status="awaiting_approval"):
                return f"Waiting for your approval: {self.titles.get(call_id, call_id)}"
            case ev.ToolCallStatusChange(call_id=call_id, status="executing"):
                return f"Running {self._label(call_id)}{self._position(call_id)}"
            case ev.ToolCallResponse(call_id=call_id, status="error", error=error):
                why = f": {_one_line(error, SUMMARY_LIMIT)}" if error else ""
                return f"{self.titles.get(call_id, call_id)} failed{why}"
            case ev.ToolCallResponse(call_id=call_id, status="cancelled"):
                return f"{self.titles.get(call_id, call_id)}: not run"
            case ev.Finished():
                self._closed = True
                self._writing = False
                return None
            case ev.Retry(attempt=attempt):
                return f"Retrying the model request (attempt {attempt + 1})"
            case ev.Notice(level="info", message=message):
                return message  # e.g. waiting for MCP servers still starting
        return None

    def _label(self, call_id: str) -> str:
        name = self.names.get(call_id, call_id)
        title = self.titles.get(call_id, name)
        return f"{name}: {title}" if title and title != name else f"{name} …"

    def _position(self, call_id: str) -> str:
        if len(self.batch) < 2 or call_id not in self.batch:
            return ""
        return f" (tool {self.batch.index(call_id) + 1} of {len(self.batch)})"


# --- permission questions -------------------------------------------------------------------------------

ALLOW_ONCE = "Allow once"
ALLOW_SESSION = "Allow for this session"
REJECT = "Reject"
_ACTION_OUTCOMES: dict[str, Outcome] = {ALLOW_ONCE: "proceed_once", ALLOW_SESSION: "proceed_always", REJECT: "reject"}
MESSAGE_TYPE = {"error": 1, "warning": 2, "info": 3, "log": 4}


def permission_options(details: ev.ConfirmationDetails) -> list[dict[str, Any]]:
    """ACP PermissionOptions; each optionId is the Confirmer outcome it stands for."""
    always = {
        "edit": "Allow all edits this session",
        "exec": "Always allow " + (", ".join(details.root_commands) or "this command") + " this session",
        "mcp": f"Always allow {details.tool or 'this tool'} this session",
        "info": "Always allow this session",
    }[details.type]
    options = [
        {"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
        {"optionId": "proceed_always", "name": always, "kind": "allow_always"},
    ]
    if details.type == "mcp" and details.server:
        options.append(
            {
                "optionId": "proceed_always_server",
                "name": f"Always allow server {details.server}",
                "kind": "allow_always",
            }
        )
    options.append({"optionId": "reject", "name": "Reject", "kind": "reject_once"})
    return options


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
    chosen = outcome.get("optionId")
    valid = {o["optionId"] for o in permission_options(details)}
    return chosen if isinstance(chosen, str) and chosen in valid else "reject"  # type: ignore[return-value]


def permission_message(details: ev.ConfirmationDetails) -> str:
    """The one-paragraph question a plain ``window/showMessageRequest`` asks."""
    if details.type == "edit":
        what = details.path or details.title
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
        "actions": [{"title": ALLOW_ONCE}, {"title": ALLOW_SESSION}, {"title": REJECT}],
    }


def outcome_from_action(response: Any) -> Outcome:
    """Reject (or an unknown title) is a no the model hears; a dismissed question (null) is the user's Stop."""
    title = response.get("title") if isinstance(response, Mapping) else None
    return _ACTION_OUTCOMES.get(title, "reject") if isinstance(title, str) else "cancel"


# --- prompts --------------------------------------------------------------------------------------------


def prompt_input(prompt: Any, context: Any = None) -> str | list[Part]:
    """What Session.send takes, from a string or ACP-like content blocks plus optional editor context.

    A plain text prompt stays a string so slash commands keep working; file links become ``@path`` mentions
    (read by the session's mention expander); embedded resources and images become parts of their own."""
    check_context(context)
    extra = context_text(context) if context else ""
    if isinstance(prompt, str):
        return prompt + (f"\n\n{extra}" if extra else "")
    if not isinstance(prompt, Sequence):
        raise ValueError("prompt must be a string or a list of content blocks")
    parts: list[Part] = []
    for block in prompt:
        if not isinstance(block, Mapping):
            raise ValueError("each content block must be an object")
        kind = block.get("type")
        if kind == "text":
            parts.append(Part(text=str(block.get("text", ""))))
        elif kind == "resource_link":
            parts.append(Part(text=_mention(str(block.get("uri", "")), str(block.get("name", "")))))
        elif kind == "resource":
            res = block.get("resource") or {}
            if "text" in res:
                parts.append(Part(text=f"\nContent of {res.get('uri', 'a resource')}:\n```\n{res['text']}\n```\n"))
            elif "blob" in res:
                mime = str(res.get("mimeType") or "application/octet-stream")
                parts.append(Part(inline_data=InlineData(mime, base64.b64decode(res["blob"]))))
        elif kind in ("image", "audio"):
            parts.append(Part(inline_data=InlineData(str(block.get("mimeType")), base64.b64decode(block["data"]))))
        else:
            raise ValueError(f"unsupported content block type {kind!r}")
    if extra:
        parts.append(Part(text="\n\n" + extra))
    if parts and all(p.text is not None for p in parts):
        return "".join(p.text or "" for p in parts)
    return parts


def _mention(uri: str, name: str) -> str:
    path = uri_to_path(uri)
    if path is None:
        return f" {name or uri} "
    shown = str(path).replace(" ", "\\ ")
    return f" @{shown} "


def check_range(rng: Any, where: str = "range") -> None:
    """Raise ValueError (naming the field) unless ``rng`` is an LSP Range."""
    if not isinstance(rng, Mapping):
        raise ValueError(f"{where} must be an object with start and end")
    for end in ("start", "end"):
        pos = rng.get(end)
        if not isinstance(pos, Mapping):
            raise ValueError(f"{where}.{end} must be a position {{line, character}}")
        for key in ("line", "character"):
            value = pos.get(key)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{where}.{end}.{key} must be a non-negative integer")


def check_context(context: Any) -> None:
    """Raise ValueError (naming the field) unless ``context`` is usable editor context (or absent)."""
    if context is None:
        return
    if not isinstance(context, Mapping):
        raise ValueError("context must be an object")
    uri = context.get("uri")
    if uri is not None and not isinstance(uri, str):
        raise ValueError("context.uri must be a string")
    if context.get("range") is not None:
        check_range(context["range"], "context.range")
    for key in ("selectedText", "selection", "instruction", "sessionId"):
        if context.get(key) is not None and not isinstance(context[key], str):
            raise ValueError(f"context.{key} must be a string")
    diagnostics = context.get("diagnostics")
    if diagnostics is None:
        return
    if not isinstance(diagnostics, list):
        raise ValueError("context.diagnostics must be an array")
    for i, d in enumerate(diagnostics):
        if not isinstance(d, Mapping) or not isinstance(d.get("message", ""), str):
            raise ValueError(f"context.diagnostics[{i}] must be a diagnostic {{range, message}}")
        check_range(d.get("range"), f"context.diagnostics[{i}].range")


def context_text(context: Any) -> str:
    """Editor context (file, range, selected text, diagnostics) as a short markdown block for the model."""
    if not isinstance(context, Mapping):
        return ""
    lines: list[str] = []
    uri = context.get("uri")
    path = uri_to_path(uri) if isinstance(uri, str) else None
    where = str(path) if path is not None else (uri or "")
    rng = context.get("range")
    if where:
        if isinstance(rng, Mapping):
            first, last = rng["start"]["line"] + 1, rng["end"]["line"] + 1
            if rng["end"]["character"] == 0 and last > first:
                last -= 1
            span = f"line {first}" if first == last else f"lines {first}-{last}"
            lines.append(f"Editor context: {where}, {span}.")
        else:
            lines.append(f"Editor context: {where}.")
    selection = context.get("selectedText", context.get("selection"))
    if isinstance(selection, str) and selection:
        lines.append(f"Selected text:\n```\n{selection}\n```")
    diagnostics = context.get("diagnostics") or []
    if diagnostics:
        lines.append("Diagnostics:")
        for d in diagnostics:
            line = d.get("range", {}).get("start", {}).get("line", 0) + 1
            source = f"[{d['source']}] " if d.get("source") else ""
            code = f" ({d['code']})" if d.get("code") is not None else ""
            lines.append(f"- line {line}: {source}{d.get('message', '')}{code}")
    return "\n".join(lines)


# --- code actions and commands --------------------------------------------------------------------------

EDIT_CHOICES = ("Improve readability", "Add comments", "Add error handling", "Simplify", "Add type hints")


def _overlaps(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    def key(p: Mapping[str, Any]) -> tuple[int, int]:
        return (p["line"], p["character"])

    return key(a["start"]) <= key(b["end"]) and key(b["start"]) <= key(a["end"])


def code_actions(uri: str, rng: Mapping[str, Any], diagnostics: Sequence[Mapping[str, Any]], only: Any) -> list[Any]:
    """ "Fix with agent" (diagnostics in range), "Explain with agent", "Edit selection with agent…"."""
    wanted = [str(k) for k in only] if isinstance(only, Sequence) and not isinstance(only, str) else None
    # The empty kind "" is the root of the hierarchy: asking for it asks for everything (vim-lsp always does).
    everything = wanted is None or "" in wanted

    def allowed(kind: str) -> bool:
        return everything or any(kind == w or kind.startswith(w + ".") for w in wanted or ())

    actions: list[Any] = []
    in_range = [d for d in diagnostics if "range" in d and _overlaps(d["range"], rng)]
    if in_range and allowed("quickfix"):
        args = {"uri": uri, "range": rng, "diagnostics": list(in_range)}
        title = "Fix with agent" + (f": {in_range[0].get('message', '')[:60]}" if len(in_range) == 1 else "")
        actions.append(
            {
                "title": title,
                "kind": "quickfix",
                "diagnostics": list(in_range),
                "command": {"title": title, "command": CMD_FIX, "arguments": [args]},
            }
        )
    if everything:  # explaining changes nothing, so it has no kind a filtered request could ask for
        args = {"uri": uri, "range": rng, "diagnostics": list(in_range)}
        actions.append(
            {
                "title": "Explain with agent",
                "command": {"title": "Explain with agent", "command": CMD_EXPLAIN, "arguments": [args]},
            }
        )
    empty = rng["start"] == rng["end"]
    if not empty and allowed("refactor.rewrite"):
        args = {"uri": uri, "range": rng}
        actions.append(
            {
                "title": "Edit selection with agent…",
                "kind": "refactor.rewrite",
                "command": {"title": "Edit selection with agent…", "command": CMD_EDIT_SELECTION, "arguments": [args]},
            }
        )
    return actions


def command_prompt(command: str, context: Mapping[str, Any], instruction: str | None = None) -> str:
    """The prompt a code-action command sends; ``context`` carries uri, range, selectedText, diagnostics."""
    about = context_text(context)
    if command == CMD_FIX:
        ask = (
            "Fix the problems reported in the diagnostics below. Make the smallest correct change, "
            "then say briefly what you changed."
        )
    elif command == CMD_EXPLAIN:
        ask = "Explain what the code below does"
        ask += " and what the diagnostics mean." if context.get("diagnostics") else "."
        ask += " Do not change any file."
    else:
        ask = (
            f"Edit the selected code: {instruction or 'improve it'}. "
            "Change only the selected lines unless more is needed."
        )
    return f"{ask}\n\n{about}" if about else ask


def command_summary(command: str, context: Mapping[str, Any], instruction: str | None = None) -> str:
    """What a code-action turn is about, for its progress ("Fix calc.py: wrong operator")."""
    uri = context.get("uri")
    path = uri_to_path(uri) if isinstance(uri, str) else None
    name = path.name if path is not None else "the file"
    diagnostics = context.get("diagnostics") or []
    first = diagnostics[0].get("message", "") if diagnostics and isinstance(diagnostics[0], Mapping) else ""
    if command == CMD_FIX:
        return f"Fix {name}" + (f": {first}" if first else "")
    if command == CMD_EXPLAIN:
        rng = context.get("range")
        line = f" line {rng['start']['line'] + 1}" if isinstance(rng, Mapping) else ""
        return f"Explain {name}{line}"
    return f"Edit {name}: {instruction or 'improve it'}"


def edit_choice_request() -> dict[str, Any]:
    """Plain-LSP fallback for "Edit selection with agent…": a client that cannot ask for free text picks one."""
    return {
        "type": MESSAGE_TYPE["info"],
        "message": "How should the agent edit the selection?",
        "actions": [{"title": t} for t in EDIT_CHOICES],
    }


def notice_message(notice: ev.Notice) -> dict[str, Any]:
    return {"type": MESSAGE_TYPE[notice.level], "message": f"Agent: {notice.message}"}
