"""The AgentEvent union: the one typed stream a session yields and both adapters consume.

Every event is a frozen dataclass with a ``kind`` discriminator. Events carry only plain data
(str, int, float, bool, None, tuples, dicts of JSON values, and the small frozen dataclasses
below) so they can be recorded to JSONL and replayed without loss.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from agent_lsp.vocabulary import ErrorMeaning

ToolStatus = Literal["validating", "awaiting_approval", "scheduled", "executing", "success", "error", "cancelled"]
ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"]
StopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled", "error"]
PlanStatus = Literal["pending", "in_progress", "completed", "cancelled", "blocked"]


@dataclass(frozen=True)
class Location:
    """A place a tool call touches, so editors can follow the agent."""

    path: str
    line: int | None = None  # 1-based, like every line number we show people


@dataclass(frozen=True)
class FileDiff:
    """A proposed or applied change to one file; old_text is None for a new file."""

    path: str
    old_text: str | None
    new_text: str
    unified: str = ""


@dataclass(frozen=True)
class ToolCallInfo:
    """What an editor needs to draw a tool call: identity, human title, kind and places."""

    call_id: str
    name: str
    args: dict[str, Any]
    title: str
    kind: ToolKind = "other"
    locations: tuple[Location, ...] = ()


@dataclass(frozen=True)
class ConfirmationDetails:
    """What the user is asked to approve. ``type`` picks which fields matter.

    edit: path, diff (old/new/unified). exec: command, root_commands. mcp: server, tool, args.
    info: prompt, urls.
    """

    type: Literal["edit", "exec", "mcp", "info"]
    title: str
    path: str | None = None
    diff: FileDiff | None = None
    command: str | None = None
    root_commands: tuple[str, ...] = ()
    server: str | None = None
    tool: str | None = None
    args: dict[str, Any] | None = None
    prompt: str | None = None
    urls: tuple[str, ...] = ()
    # "Allow in all future sessions" may be offered: settings allow it (security.enablePermanentToolApproval)
    # and the answer can be written as a policy rule.
    savable: bool = False


@dataclass(frozen=True)
class PlanEntry:
    content: str
    status: PlanStatus = "pending"


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    candidates_tokens: int = 0
    thoughts_tokens: int = 0
    cached_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        """Counts summed (a session's usage over its responses)."""
        return Usage(*(a + b for a, b in zip(dataclasses.astuple(self), dataclasses.astuple(other), strict=True)))


@dataclass(frozen=True)
class UserMessage:
    """The prompt as the user sent it (recorded so a loaded session can be redrawn). ``history_index``: how many
    history contents came before it, so a rewind to this message knows where to cut (-1: not known)."""

    text: str
    history_index: int = -1
    kind: Literal["user_message"] = "user_message"


@dataclass(frozen=True)
class Content:
    text: str
    kind: Literal["content"] = "content"


@dataclass(frozen=True)
class Thought:
    subject: str
    description: str
    kind: Literal["thought"] = "thought"


@dataclass(frozen=True)
class ToolCallRequest:
    call: ToolCallInfo
    kind: Literal["tool_call_request"] = "tool_call_request"


@dataclass(frozen=True)
class ToolCallConfirmation:
    call: ToolCallInfo
    details: ConfirmationDetails
    kind: Literal["tool_call_confirmation"] = "tool_call_confirmation"


@dataclass(frozen=True)
class ToolCallStatusChange:
    """A scheduler state change that is not terminal (validating … executing)."""

    call_id: str
    status: ToolStatus
    kind: Literal["tool_call_status"] = "tool_call_status"


@dataclass(frozen=True)
class ToolOutput:
    """Live output of a running tool (shell), in arrival order."""

    call_id: str
    chunk: str
    kind: Literal["tool_output"] = "tool_output"


@dataclass(frozen=True)
class ToolCallResponse:
    """The terminal state of a tool call, with what the user should see of it."""

    call_id: str
    name: str
    status: Literal["success", "error", "cancelled"]
    display: str | None = None  # markdown for the user
    diff: FileDiff | None = None  # set when the call changed a file
    error: str | None = None
    duration_ms: float = 0.0
    locations: tuple[Location, ...] = ()
    # Gemini CLI's ToolErrorType of a failed call ("tool_not_registered", "policy_violation", a tool's own…);
    # None on success, on cancellation and in recordings written before it existed.
    error_type: str | None = None
    kind: Literal["tool_call_response"] = "tool_call_response"


@dataclass(frozen=True)
class Plan:
    """The agent's current plan, always the full list (from write_todos)."""

    entries: tuple[PlanEntry, ...]
    kind: Literal["plan"] = "plan"


@dataclass(frozen=True)
class UserCancelled:
    kind: Literal["user_cancelled"] = "user_cancelled"


@dataclass(frozen=True)
class Error:
    """A model or configuration failure that ended the turn; ``message`` is for a person, ``meaning`` what
    went wrong in the shared vocabulary (the error's class decides it; adapters map it to their codes), ``status``
    the HTTP status when there was one (for stats, telemetry and Gemini CLI's JSON exit codes), ``exit_code`` the
    headless exit code the error's class gives (errors.py: 41 credentials, 52 settings, else 1)."""

    message: str
    status: int | None = None
    meaning: ErrorMeaning = "internal"
    exit_code: int = 1
    kind: Literal["error"] = "error"


@dataclass(frozen=True)
class ChatCompressed:
    original_tokens: int
    new_tokens: int
    kind: Literal["chat_compressed"] = "chat_compressed"


@dataclass(frozen=True)
class MaxSessionTurns:
    limit: int
    kind: Literal["max_session_turns"] = "max_session_turns"


@dataclass(frozen=True)
class Finished:
    """One model response ended."""

    finish_reason: str | None
    usage: Usage | None = None
    # The session's estimated cost so far in US dollars (model/prices.py); None once a request's price is unknown.
    cost: float | None = None
    kind: Literal["finished"] = "finished"


@dataclass(frozen=True)
class LoopDetected:
    loop_type: Literal["tool_call", "content"]
    detail: str = ""
    kind: Literal["loop_detected"] = "loop_detected"


@dataclass(frozen=True)
class Retry:
    """The model request is being retried; partial output since the last retry is void."""

    attempt: int
    reason: str
    delay_s: float
    kind: Literal["retry"] = "retry"


@dataclass(frozen=True)
class ModelFallback:
    from_model: str
    to_model: str
    reason: str
    kind: Literal["model_fallback"] = "model_fallback"


@dataclass(frozen=True)
class InvalidStream:
    reason: Literal["no_finish_reason", "empty_response", "thoughts_only", "malformed_function_call", "safety"]
    detail: str = ""
    kind: Literal["invalid_stream"] = "invalid_stream"


@dataclass(frozen=True)
class ContextWindowWillOverflow:
    estimated_tokens: int
    remaining_tokens: int
    kind: Literal["context_window_will_overflow"] = "context_window_will_overflow"


@dataclass(frozen=True)
class SessionTitle:
    title: str
    kind: Literal["session_title"] = "session_title"


@dataclass(frozen=True)
class ModeChanged:
    """The session's approval mode changed during a prompt (the model entered or left plan mode)."""

    mode: str
    kind: Literal["mode_changed"] = "mode_changed"


@dataclass(frozen=True)
class Notice:
    """Something the user should know that is not part of the conversation (settings, MCP, trust)."""

    level: Literal["info", "warning", "error"]
    message: str
    kind: Literal["notice"] = "notice"


@dataclass(frozen=True)
class Stop:
    """The last event of every prompt: why it ended."""

    reason: StopReason
    usage: Usage | None = None
    kind: Literal["stop"] = "stop"


AgentEvent: TypeAlias = (
    UserMessage
    | Content
    | Thought
    | ToolCallRequest
    | ToolCallConfirmation
    | ToolCallStatusChange
    | ToolOutput
    | ToolCallResponse
    | Plan
    | UserCancelled
    | Error
    | ChatCompressed
    | MaxSessionTurns
    | Finished
    | LoopDetected
    | Retry
    | ModelFallback
    | InvalidStream
    | ContextWindowWillOverflow
    | SessionTitle
    | ModeChanged
    | Notice
    | Stop
)

# Keyed by each event's ``kind`` default (the one value its Literal allows), read from the dataclass fields:
# evaluating every class's annotations with get_type_hints here cost ~2 ms of every start-up.
EVENT_TYPES: dict[str, type[Any]] = {
    cls.__dataclass_fields__["kind"].default: cls for cls in typing.get_args(AgentEvent)
}


def event_to_dict(event: AgentEvent) -> dict[str, Any]:
    """A JSON-ready dict of an event (nested dataclasses become dicts, tuples lists)."""
    plain: dict[str, Any] = _plain(event)
    return plain


def event_from_dict(data: dict[str, Any]) -> AgentEvent:
    """Rebuild an event written by :func:`event_to_dict`; unknown keys are ignored."""
    cls = EVENT_TYPES[data["kind"]]
    result: AgentEvent = _build(cls, data)
    return result


def _plain(value: Any) -> Any:
    # Hand-rolled instead of dataclasses.asdict, which deep-copies every value: this runs for every event.
    fields = getattr(value, "__dataclass_fields__", None)
    if fields is not None:
        return {name: _plain(getattr(value, name)) for name in fields}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _build(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(tp)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = typing.get_type_hints(tp)
        kwargs = {f.name: _build(hints[f.name], value[f.name]) for f in dataclasses.fields(tp) if f.name in value}
        return tp(**kwargs)
    if origin is tuple:
        (item_tp, *_rest) = typing.get_args(tp)
        return tuple(_build(item_tp, v) for v in value)
    if origin in (typing.Union, _UnionType):
        for arg in typing.get_args(tp):
            if arg is type(None):
                continue
            if dataclasses.is_dataclass(arg) and isinstance(value, dict):
                return _build(arg, value)
            if not dataclasses.is_dataclass(arg):
                return value
        return value
    return value


_UnionType = type(int | None)
