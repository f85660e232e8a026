"""The small Protocols the core is handed at the composition root (besides ModelClient and FileSystem)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from agent_lsp.events import AgentEvent, ConfirmationDetails, ToolCallInfo

Outcome = Literal[
    "proceed_once",
    "proceed_always",  # this session; shell: these root commands; MCP: this tool
    "proceed_always_server",  # MCP: every tool of this server, this session
    "proceed_always_save",  # and save the rule in ~/.gemini/policies/auto-saved.toml
    "modify",
    "reject",  # no to this call: the model is told and answers in the same turn
    "cancel",  # stop: the call and the rest of the turn are cancelled
]


@dataclass(frozen=True)
class ConfirmationResult:
    """The user's answer. For ``modify``, ``modified_content`` is the edited proposal to apply."""

    outcome: Outcome
    modified_content: str | None = None


class Confirmer(Protocol):
    """Asks the user (through the editor) whether a tool call may run."""

    async def confirm(self, call: ToolCallInfo, details: ConfirmationDetails) -> ConfirmationResult: ...


class Checkpointer(Protocol):
    """Snapshots the workspace before a tool that modifies files runs."""

    async def before_tool(self, call: ToolCallInfo, history: Sequence[object]) -> None: ...


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
