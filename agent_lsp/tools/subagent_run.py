"""Running one subagent: a core Session of its own (its own history, tools, turn and time limits) under the main
session's policy and confirmations; its steps become the invoke_agent call's live output."""

from __future__ import annotations

import asyncio
import datetime
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agent_lsp import events as ev
from agent_lsp.core.driving import drive
from agent_lsp.core.ports import ToolPolicy, ToolSet
from agent_lsp.core.scheduler import Scheduler
from agent_lsp.core.session import Session
from agent_lsp.core.session_state import SessionDeps, SessionOptions, SessionState
from agent_lsp.model.base import Content
from agent_lsp.tools.base import OutputSink, Tool, ToolInvocation, ToolResult
from agent_lsp.tools.registry import ToolRegistry
from agent_lsp.tools.subagents import AgentDefinition

COMPLETE_TASK = "complete_task"
NOT_FOR_SUBAGENTS = frozenset({"invoke_agent", "update_topic"})  # as Gemini CLI 0.61: no nesting, no renaming


@dataclass(frozen=True)
class SubagentParts:
    """What the runtime hands invoke_agent: the main session's tools, policy and model, and a scheduler maker."""

    registry: ToolRegistry
    policy: ToolPolicy
    state: Callable[[str | None], SessionState]  # a fresh state on the main session's client (and model, for None)
    scheduler: Callable[
        [
            ToolSet,
            Callable[[ev.AgentEvent], None],
            Callable[[], Sequence[Content]],
            Callable[[], Awaitable[None]],
            ev.Origin,
        ],
        Scheduler,
    ]
    system_prompt: Callable[[], str]  # the main session's, for agents without their own
    options: Callable[[int], SessionOptions]  # max turns -> the subagent's session options
    emit: Callable[[ev.AgentEvent], None] = lambda _event: None  # the main session's stream
    delivered: Callable[[], Awaitable[None]] | None = None  # ... and its consumer having drawn what was emitted
    meter: Callable[[], ev.UsageTotals] | None = None  # the main session's usage ledger (its Finished events say it)


class CompleteTaskTool(Tool):
    """The only way a subagent finishes: it hands in its output (Gemini CLI's ``complete_task``)."""

    name = COMPLETE_TASK
    display_name = "Complete Task"
    description = "Hands in your final output and ends your task. This is the only way to finish."
    kind = "think"  # allowed in every mode: it changes nothing

    def __init__(self, agent: AgentDefinition, done: Callable[[], None]) -> None:
        self.agent = agent
        self.done = done  # stops the subagent's prompt: nothing after complete_task may reach the model
        self.submitted: str | None = None
        schema = dict(agent.output_schema)
        schema.setdefault("description", "Your final output for the agent that started you, complete and as asked.")
        self.parameters = {"type": "object", "properties": {agent.output_name: schema}, "required": [agent.output_name]}

    def check(self, params: dict[str, Any]) -> str | None:
        value = params.get(self.agent.output_name)
        if value is None or (isinstance(value, str) and not value.strip()):
            return f"Missing required argument '{self.agent.output_name}' for completion."
        return None

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        return _Complete(params[self.agent.output_name], self)


class _Complete(ToolInvocation[Any]):
    def __init__(self, params: Any, tool: CompleteTaskTool) -> None:
        super().__init__(params)
        self.tool = tool

    def describe(self) -> str:
        return "Completing task and submitting results."

    async def execute(self, output: OutputSink) -> ToolResult:
        value, fmt = self.params, self.tool.agent.format_output
        if fmt is not None:
            self.tool.submitted = fmt(value)
        else:
            self.tool.submitted = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
        # Ends the subagent's prompt here, so its loop never asks the model again; the run reads the submitted
        # output. (Without the sleep the cancellation would land at the next real wait: inside the next request.)
        self.tool.done()
        await asyncio.sleep(0)
        return ToolResult(llm_content="Output submitted and task completed.", display="Task completed.")


def _private_tools() -> dict[str, Callable[[], Tool]]:
    """Tools only a subagent has (not the session's): cli_help's documentation reader."""
    from agent_lsp.tools.internal_docs import GET_INTERNAL_DOCS, GetInternalDocsTool

    return {GET_INTERNAL_DOCS: GetInternalDocsTool}


def _subset(agent: AgentDefinition, parent: ToolRegistry) -> list[Tool]:
    if agent.tools is None:
        return [t for n in parent.names() if n not in NOT_FOR_SUBAGENTS and (t := parent.get(n)) is not None]
    private = _private_tools()
    out: list[Tool] = []
    for name in agent.tools:
        tool = parent.get(name) if name not in private else private[name]()
        if tool is not None and name not in NOT_FOR_SUBAGENTS:
            out.append(tool)
    return out


def _system_prompt(text: str, model: str) -> str:
    """Gemini CLI's runtime placeholders in an agent's system prompt: version, model, date."""
    from agent_lsp import __version__

    values = {"cliVersion": __version__, "activeModel": model, "today": datetime.date.today().isoformat()}
    return re.sub(r"\$\{(cliVersion|activeModel|today)\}", lambda m: values[m.group(1)], text)


def _final_warning(reason: str) -> str:
    return (
        f"{reason} You have one last turn: call `{COMPLETE_TASK}` now with your best answer, say that your work was "
        "cut short, and call no other tool."
    )


class SubagentRun:
    """One invocation: builds the subagent's session, runs it to ``complete_task`` or a limit, reports steps."""

    def __init__(self, agent: AgentDefinition, parts: SubagentParts, output: OutputSink, call_id: str = "") -> None:
        self.agent = agent
        self.output = output
        self.complete = CompleteTaskTool(agent, lambda: self.session.cancel())
        self.registry = ToolRegistry([*_subset(agent, parts.registry), self.complete])
        registry = self.registry
        own_prompt = agent.system_prompt

        def scheduler(
            emit: Callable[[ev.AgentEvent], None],
            history: Callable[[], Sequence[Content]],
            delivered: Callable[[], Awaitable[None]],
        ) -> Scheduler:
            # Its questions wait for the main stream's consumer, which draws the child's events (forwarded).
            return parts.scheduler(registry, emit, history, parts.delivered or delivered, self.origin)

        state = parts.state(agent.model)
        if own_prompt is not None:
            own_prompt = _system_prompt(own_prompt, state.model)
        deps = SessionDeps(
            registry=registry,
            policy=parts.policy,
            scheduler_factory=scheduler,
            system_prompt=(lambda: own_prompt) if own_prompt is not None else parts.system_prompt,
            options=parts.options(agent.max_turns),
            meter=parts.meter,  # its responses report the session's totals, and this run's share as its turn
        )
        self.session = Session(deps, state)
        self.origin = ev.Origin(call_id, agent.name, self.session.id)
        forward, origin = parts.emit, self.origin

        hidden: set[str] = set()  # complete_task calls: how the run ends, not a step (its report ends the call)

        def to_parent(event: ev.AgentEvent) -> None:
            if isinstance(event, ev.SessionTitle):  # the child's title is its agent's name, said once
                return
            if isinstance(event, ev.ToolCallRequest) and event.call.name == COMPLETE_TASK:
                hidden.add(event.call.call_id)
                return
            if getattr(event, "call_id", None) in hidden:
                return
            forward(ev.SubagentEvent(origin, event))

        self.session.sinks.append(to_parent)
        self.last_text = ""
        self._new_response = True

    async def run(self, task: str) -> tuple[str, str | None]:
        """(termination reason, output): ``GOAL`` with the submitted output, or why it stopped without one."""
        query = self.agent.query.replace("{input}", task)
        try:
            async with asyncio.timeout(self.agent.max_minutes * 60):
                stop = await self._send(query)
                if self.complete.submitted is not None:  # its prompt was cancelled by complete_task
                    return "GOAL", self.complete.submitted
                if stop in ("end_turn", "max_turn_requests"):
                    # One more turn to hand in what it has, as Gemini CLI gives (the turn limit raised by one).
                    why = "You stopped without finishing." if stop == "end_turn" else "You used all of your turns."
                    self.session.allow_one_more_turn()
                    self.output(f"• Limit reached ({why.lower().rstrip('.')}): one last turn to finish.\n")
                    await self._send(_final_warning(why))
                    if self.complete.submitted is not None:
                        return "GOAL", self.complete.submitted
                    return ("MAX_TURNS" if stop == "max_turn_requests" else "ERROR_NO_COMPLETE_TASK_CALL"), None
                return ("ABORTED" if stop == "cancelled" else "ERROR"), None
        except TimeoutError:
            return "TIMEOUT", None

    async def _send(self, text: str) -> ev.StopReason:
        async def deliver(event: ev.AgentEvent) -> None:
            self._show(event)

        # The driver closes the stream however this ends, which cancels the subagent's prompt if it still runs.
        return (await drive(self.session.send(text), deliver)).stop

    def _show(self, event: ev.AgentEvent) -> None:
        """The subagent's steps, one line each, as the invoke_agent call's live output."""
        match event:
            case ev.Content(text=text):
                self.last_text = text if self._new_response else self.last_text + text
                self._new_response = False
            case ev.Finished():
                self._new_response = True  # the last message is the last response's text only
            case ev.Thought(subject=subject) if subject:
                self.output(f"💭 {subject}\n")
            case ev.ToolCallRequest(call=call) if call.name != COMPLETE_TASK:
                self.output(f"🔧 {call.name}: {call.title or ''}".rstrip(": ") + "\n")
            case ev.ToolCallResponse(name=name, status=status, error=error) if (
                status != "success" and name != COMPLETE_TASK
            ):
                self.output(f"   ✗ {name}: {(error or status).splitlines()[0][:200]}\n")
            case ev.Error(message=message):
                self.output(f"⚠ {message}\n")
            case ev.MaxSessionTurns(limit=limit):
                self.output(f"• Turn limit ({limit}) reached.\n")
