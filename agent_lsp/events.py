"""The AgentEvent union: the one typed stream a session yields and both adapters consume.

Every event is a frozen dataclass with a ``kind`` discriminator. Events carry only plain data
(str, int, float, bool, None, tuples, dicts of JSON values, and the small frozen dataclasses
below) so they can be recorded to JSONL and replayed without loss.
"""

from __future__ import annotations

import dataclasses
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
    origin: Origin | None = None  # a subagent's call (set when its question is asked): whose it is


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
    # A change that spans several files (rename_symbol): ``diff`` is the first file's, these are the others'.
    extra_diffs: tuple[FileDiff, ...] = ()
    # "Allow always" may be offered at all (False: security.disableAlwaysAllow or admin.secureModeEnabled).
    always: bool = True


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

    def counts(self) -> tuple[int, int, int, int, int]:
        # Spelled out: dataclasses.astuple deep-copies every field and was a visible share of a turn (profile).
        return (self.prompt_tokens, self.candidates_tokens, self.thoughts_tokens, self.cached_tokens, self.total_tokens)

    def __add__(self, other: Usage) -> Usage:
        """Counts summed (a session's usage over its responses)."""
        return Usage(*(a + b for a, b in zip(self.counts(), other.counts(), strict=True)))

    def __sub__(self, other: Usage) -> Usage:
        """Counts taken away (what a span of a session added: its end's totals minus its start's)."""
        return Usage(*(a - b for a, b in zip(self.counts(), other.counts(), strict=True)))


@dataclass(frozen=True)
class ModelUsage:
    """What one model was asked over a span of a session: requests that reported usage, their summed counts and
    estimated cost in US dollars (None when no price is known for the model)."""

    model: str
    requests: int = 0
    usage: Usage = dataclasses.field(default_factory=Usage)
    cost: float | None = 0.0


@dataclass(frozen=True)
class UsageTotals:
    """Every model call made for a session (main loop, subagents, compression, web tools, MCP sampling, retries
    that reported usage), by model; see docs/models.md#cost for what is and is not counted."""

    by_model: tuple[ModelUsage, ...] = ()

    @property
    def usage(self) -> Usage:
        total = Usage()
        for m in self.by_model:
            total = total + m.usage
        return total

    @property
    def requests(self) -> int:
        return sum(m.requests for m in self.by_model)

    @property
    def cost(self) -> float | None:
        """The summed estimate; None when any model that answered has no known price (a partial sum would lie)."""
        costs = [m.cost for m in self.by_model if m.requests]
        return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)

    def since(self, start: UsageTotals) -> UsageTotals:
        """What was added after ``start`` (an earlier reading of the same ledger): one prompt's share."""
        before = {m.model: m for m in start.by_model}
        out = []
        for m in self.by_model:
            b = before.get(m.model)
            if b is None:
                out.append(m)
            elif m.requests != b.requests:
                cost = None if m.cost is None or b.cost is None else m.cost - b.cost
                out.append(ModelUsage(m.model, m.requests - b.requests, m.usage - b.usage, cost))
        return UsageTotals(tuple(out))


@dataclass(frozen=True)
class UserMessage:
    """The prompt as the user sent it (recorded so a loaded session can be redrawn). ``history_index``: how many
    history contents came before it, so a rewind to this message knows where to cut (-1: not known).
    ``message_id``: the message's id, the same live, recorded and replayed (empty in older recordings).
    ``steered``: sent into a running turn (steering) and put into the history where the turn was then."""

    text: str
    history_index: int = -1
    message_id: str = ""
    steered: bool = False
    kind: Literal["user_message"] = "user_message"


@dataclass(frozen=True)
class Content:
    """A chunk of the agent's message; every chunk of one message has its ``message_id`` (set by the session's
    stream when the producer left it empty)."""

    text: str
    message_id: str = ""
    # The compaction this text reports (``/compress``'s answer): a client that draws compactions as items has
    # it there, so it is not told twice.
    compaction_id: str = ""
    kind: Literal["content"] = "content"


@dataclass(frozen=True)
class Thought:
    subject: str
    description: str
    message_id: str = ""
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
    extra_diffs: tuple[FileDiff, ...] = ()  # the other files a multi-file change changed (rename_symbol)
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
    compaction_id: str = ""  # the Compaction whose completion this is
    kind: Literal["chat_compressed"] = "chat_compressed"


CompactionStatus = Literal["in_progress", "completed", "failed"]


@dataclass(frozen=True)
class Compaction:
    """One step of a compression of the conversation (``/compress``, the automatic one, or one that failed): the
    same ``compaction_id`` goes in_progress → completed (with the ``summary`` that replaced the older messages and
    the token counts) or failed (with the ``error``)."""

    compaction_id: str
    status: CompactionStatus
    trigger: Literal["manual", "auto"] = "auto"
    summary: str = ""
    error: str = ""
    tokens_before: int = 0
    tokens_after: int = 0
    kind: Literal["compaction"] = "compaction"


@dataclass(frozen=True)
class Origin:
    """Where a subagent's event comes from: the parent's invoke_agent call, the agent's name, the child session."""

    parent_call_id: str
    agent: str
    child_session_id: str


@dataclass(frozen=True)
class SubagentEvent:
    """An event of a subagent's session, forwarded through its parent's stream (in order, questions included)."""

    origin: Origin
    event: AgentEvent
    kind: Literal["subagent"] = "subagent"


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
    # Every model call made for the session so far, and for the running prompt (None: not metered).
    session_usage: UsageTotals | None = None
    turn_usage: UsageTotals | None = None
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
    # As on Finished: the whole session's model calls and this prompt's (None: not metered).
    session_usage: UsageTotals | None = None
    turn_usage: UsageTotals | None = None
    kind: Literal["stop"] = "stop"


@dataclass(frozen=True)
class ContextUsage:
    """The context the next request will carry after the conversation changed outside a prompt (a rewind or its
    undo, a fork, a model switch): ``used`` tokens (an estimate) of the model's ``size``, with the session's model
    calls so far (``session_usage``: a rewind gives no cost back)."""

    used: int
    size: int
    session_usage: UsageTotals | None = None
    kind: Literal["context_usage"] = "context_usage"


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
    | Compaction
    | SubagentEvent
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
    | ContextUsage
    | Stop
)
