"""The small Protocols the core is handed at the composition root (besides ModelClient and FileSystem)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from agent_lsp.vocabulary import ApprovalMode as ApprovalMode  # re-exported: the core's vocabulary
from agent_lsp.vocabulary import Outcome as Outcome

if TYPE_CHECKING:  # only annotations: an adapter's confirmer needs this module before any tool is loaded
    from agent_lsp.core.tool import Tool
    from agent_lsp.events import AgentEvent, ConfirmationDetails, ToolCallInfo
    from agent_lsp.model.base import FunctionDeclaration


@dataclass(frozen=True)
class ConfirmationResult:
    """The user's answer. For ``modify``, ``modified_content`` is the edited proposal to apply."""

    outcome: Outcome
    modified_content: str | None = None


class Confirmer(Protocol):
    """Asks the user (through the editor) whether a tool call may run."""

    async def confirm(self, call: ToolCallInfo, details: ConfirmationDetails) -> ConfirmationResult: ...


Decision = Literal["allow", "ask", "deny"]


class ToolSet(Protocol):
    """The tools a session offers, by the name the model uses (the runtime's registry; MCP adds to it later)."""

    def get(self, name: str) -> Tool | None: ...

    def names(self) -> list[str]: ...

    def declarations(self) -> list[FunctionDeclaration]: ...


class ToolPolicy(Protocol):
    """Decides whether a call may run: the approval mode plus the policy engine (``tools/policy.py``).

    ``interactive`` False means nobody can be asked, so "ask" ends the call with an error the model reads."""

    @property
    def mode(self) -> ApprovalMode: ...

    @property
    def interactive(self) -> bool: ...

    def set_mode(self, mode: ApprovalMode) -> str | None:
        """Change mode; returns why the change was refused, or None."""
        ...

    def is_enabled(self, name: str, tool: Tool | None = None) -> bool:
        """Whether the model is told about the tool at all."""
        ...

    def decide(self, tool: Tool, args: dict[str, Any]) -> tuple[Decision, str]:
        """allow, ask or deny, and for deny the reason the model reads."""
        ...

    def remember(self, tool: Tool, details: ConfirmationDetails, scope: Literal["tool", "server"] = "tool") -> None:
        """ "Allow always" for the rest of this session."""
        ...

    def rule_for(self, tool: Tool, details: ConfirmationDetails) -> list[str]:
        """The rules "allow always and save" would persist (tools.allowed-style entries); empty: none can be."""
        ...


class Checkpointer(Protocol):
    """Snapshots the workspace before a tool that modifies files runs."""

    async def before_tool(self, call: ToolCallInfo, history: Sequence[object]) -> None: ...

    async def after_tool(self, call: ToolCallInfo) -> None:
        """The call has run: what it changed can now be told apart from the user's later edits (rewind)."""
        ...


class JitMemory(Protocol):
    """Just-in-time GEMINI.md: text of memory files in folders a tool touched, each given once."""

    def context_for(self, paths: Sequence[str]) -> str | None: ...


class EventSink(Protocol):
    """Observes every event of a session (recording, telemetry). Must not block or raise."""

    def __call__(self, event: AgentEvent) -> None: ...


class AutoConfirmer:
    """Approves everything: for yolo runs and tests that do not exercise confirmation."""

    async def confirm(self, call: ToolCallInfo, details: ConfirmationDetails) -> ConfirmationResult:
        return ConfirmationResult("proceed_once")


class DenyConfirmer:
    """Refuses everything (the model is told each time): for headless runs where nobody can be asked."""

    async def confirm(self, call: ToolCallInfo, details: ConfirmationDetails) -> ConfirmationResult:
        return ConfirmationResult("reject")


HOOK_EVENTS = (
    "SessionStart",
    "SessionEnd",
    "BeforeAgent",
    "AfterAgent",
    "BeforeModel",
    "AfterModel",
    "BeforeTool",
    "AfterTool",
    "PreCompress",
    "Notification",
)


@dataclass(frozen=True)
class HookOutcome:
    """What the hooks of one event decided, merged as Gemini CLI merges them (any block wins)."""

    blocked: bool = False  # "decision": "deny"/"block", or exit code 2
    reason: str = ""  # why it was blocked: the model reads it (tools) or the user does (turns)
    stop: bool = False  # "continue": false — the whole agent loop stops
    stop_reason: str = ""
    additional_context: str = ""  # hookSpecificOutput.additionalContext, joined
    tool_input: Mapping[str, Any] | None = None  # BeforeTool: merged over the model's arguments
    llm_request: Mapping[str, Any] | None = None  # BeforeModel: overrides of the outgoing request
    llm_response: Mapping[str, Any] | None = None  # BeforeModel: a synthetic answer; AfterModel: a replacement
    clear_context: bool = False  # AfterAgent: forget the conversation
    notices: tuple[tuple[Literal["info", "warning", "error"], str], ...] = ()  # systemMessage, failed hooks


class Hooks(Protocol):
    """Gemini CLI hooks: configured commands run at points of the loop, each told what is happening (JSON on
    stdin) and answering what to do (JSON on stdout). A hook that fails is a notice, never an exception."""

    def has(self, event: str, target: str | None = None) -> bool:
        """Whether any hook would run (so callers skip building a payload nobody reads)."""
        ...

    async def fire(self, event: str, payload: Mapping[str, Any], target: str | None = None) -> HookOutcome:
        """Run the hooks of ``event`` whose matcher fits ``target`` (a tool name, a start source)."""
        ...
