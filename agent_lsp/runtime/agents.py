"""Builder: invoke_agent and the session's subagents, wired to the session's model, policy and scheduler parts."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from agent_lsp import events as ev
from agent_lsp.core.ports import ConfirmationResult, Confirmer
from agent_lsp.core.ports import ToolSet as CoreToolSet
from agent_lsp.core.session import Session
from agent_lsp.core.session_state import SessionOptions, SessionState
from agent_lsp.model.base import Content

if TYPE_CHECKING:
    from agent_lsp.core.scheduler import Scheduler
    from agent_lsp.runtime.tools import SessionTools


class SchedulerFor(Protocol):
    """Builds a turn's scheduler over a registry; ``origin``: a subagent's (its questions say whose call it is)."""

    def __call__(
        self,
        registry: CoreToolSet,
        emit: Callable[[ev.AgentEvent], None],
        history: Callable[[], Sequence[Content]],
        delivered: Callable[[], Awaitable[None]],
        origin: ev.Origin | None = None,
    ) -> Scheduler: ...


class OriginConfirmer:
    """The session's confirmer, asked about a subagent's call: the call carries its origin, so the editor can ask
    under the child session (or say whose call it is)."""

    def __init__(self, inner: Confirmer, origin: ev.Origin) -> None:
        self.inner = inner
        self.origin = origin

    async def confirm(self, call: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> ConfirmationResult:
        return await self.inner.confirm(dataclasses.replace(call, origin=self.origin), details)


def register_subagents(
    tools: SessionTools, session: Session, scheduler_for: SchedulerFor, prompt: Callable[[], str]
) -> None:
    """Add invoke_agent to the session's tools when it has subagents: each runs with the session's current model,
    its policy (mode, rules, "allow always") and its confirmer, checkpoints and hooks."""
    if not tools.agents:
        return
    from agent_lsp.tools.invoke_agent import InvokeAgentTool
    from agent_lsp.tools.subagent_run import SubagentParts

    def state(model: str | None) -> SessionState:
        main = session.state
        # The main session's client is the router's metered one (model/metered.py): a subagent's calls count in
        # the session's usage and cost. A subagent must get its client here, never build its own.
        return SessionState(client=main.client, model=model or main.model, allow_fallback=main.allow_fallback)

    def options(max_turns: int) -> SessionOptions:
        return dataclasses.replace(session.deps.options, max_session_turns=max_turns)

    # The child's events go through the parent's stream (emit), and its questions wait until the parent's consumer
    # has drawn them (delivered): one ordered stream for the editor.
    parts = SubagentParts(
        tools.registry,
        session.policy,
        state,
        scheduler_for,
        prompt,
        options,
        session.emit,
        session.delivered,
        session.deps.meter,
    )
    tools.registry.register(InvokeAgentTool(tools.agents, parts))
