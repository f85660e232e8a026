"""The tool scheduler: validate, decide, confirm, checkpoint, execute; every state change is an event.

Read-only calls that need no approval run in parallel; everything else runs one at a time in the
order the model asked. A rejected call is answered "canceled by the user" and the batch goes on (the model
reads it and may propose something else); a cancelled confirmation cancels the rest of the batch and the turn.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent_lsp import events as ev
from agent_lsp.core.approval import Approval
from agent_lsp.core.approval import rejected_message as rejected_message  # kept importable from here
from agent_lsp.core.ports import Checkpointer, Confirmer, Decision, Hooks, JitMemory, ToolPolicy, ToolSet
from agent_lsp.core.tool import Tool, ToolCallRequestInfo, ToolInvocation, ToolResult
from agent_lsp.core.tool_answers import answer_text, tool_suggestion
from agent_lsp.core.tool_hooks import after_tool, before_tool, note_changed
from agent_lsp.errors import ToolError
from agent_lsp.model.base import Content, FunctionResponse, Part

log = logging.getLogger(__name__)
DEFAULT_TRUNCATE_THRESHOLD = 40_000
MUTATING_KINDS = ("edit", "delete", "move")


@dataclass
class CallOutcome:
    """A finished call, ready to become a functionResponse."""

    call_id: str
    name: str
    status: Literal["success", "error", "cancelled"]
    response: dict[str, Any]
    extra_parts: list[Part] = field(default_factory=list)
    declined: bool = False  # the user cancelled at a confirmation: the prompt ends without asking the model again
    stopped: str | None = None  # a hook said "continue": false: the prompt ends after this batch, with this reason


@dataclass
class _Prepared:
    request: ToolCallRequestInfo
    info: ev.ToolCallInfo
    tool: Tool | None = None
    invocation: ToolInvocation[Any] | None = None
    error: str | None = None
    error_type: str | None = None
    decision: Decision = "ask"
    deny_reason: str = ""

    @property
    def parallel(self) -> bool:
        return self.error is None and self.decision == "allow" and self.tool is not None and self.tool.read_only


class Scheduler:
    """Runs one batch of calls (a fresh scheduler per batch); every call gets exactly one answer."""

    def __init__(
        self,
        registry: ToolSet,
        policy: ToolPolicy,
        confirmer: Confirmer,
        emit: Callable[[ev.AgentEvent], None],
        *,
        temp_dir: Path,
        delivered: Callable[[], Awaitable[None]] | None = None,
        checkpointer: Checkpointer | None = None,
        jit_memory: JitMemory | None = None,
        history: Callable[[], Sequence[Content]] = tuple,
        on_save_rule: Callable[[list[str]], None] | None = None,
        permanent_approval: bool = False,
        truncate_threshold: int = DEFAULT_TRUNCATE_THRESHOLD,
        hooks: Hooks | None = None,
    ) -> None:
        self.registry = registry
        self.policy = policy
        self.emit = emit
        self.temp_dir = temp_dir
        self.checkpointer = checkpointer
        self.jit_memory = jit_memory
        self.history = history
        self.truncate_threshold = truncate_threshold
        self.hooks = hooks
        self.approval = Approval(
            policy,
            confirmer,
            emit,
            delivered=delivered,
            hooks=hooks,
            on_save_rule=on_save_rule,
            permanent_approval=permanent_approval,
        )

    async def run(self, calls: Sequence[ToolCallRequestInfo], outcomes: dict[str, CallOutcome]) -> None:
        """Run a batch, filling ``outcomes`` as calls finish (so a cancelled batch still answers every call)."""
        prepared: list[_Prepared] = []
        try:
            prepared = [self._prepare(c) for c in calls]
            group: list[_Prepared] = []
            for p in prepared:
                if p.parallel:
                    group.append(p)
                    continue
                await self._run_group(group, outcomes)
                group = []
                if any(o.declined for o in outcomes.values()):
                    self._cancel(p, outcomes, "Cancelled because the user declined an earlier call in this batch.")
                    continue
                await self._run_one(p, outcomes)
            await self._run_group(group, outcomes)
        finally:
            # Cancelled (or crashed) mid-batch: every call still gets an answer, in the model's order.
            for c in calls:
                if c.call_id not in outcomes:
                    match = next((p for p in prepared if p.request.call_id == c.call_id), None)
                    self._cancel(match or self._prepare_bare(c), outcomes, "Cancelled by the user.")

    def _prepare_bare(self, request: ToolCallRequestInfo) -> _Prepared:
        return _Prepared(request, ev.ToolCallInfo(request.call_id, request.name, request.args, request.name))

    def _prepare(self, request: ToolCallRequestInfo) -> _Prepared:
        p = self._prepare_bare(request)
        tool = self.registry.get(request.name)
        if tool is None or not self.policy.is_enabled(request.name, tool):
            names = [n for n in self.registry.names() if self.policy.is_enabled(n, self.registry.get(n))]
            p.error = f'Tool "{request.name}" not found.{tool_suggestion(request.name, names)}'
            p.error_type = "tool_not_registered"
        else:
            p.tool = tool
            problem = tool.validate(request.args)
            if problem is None:
                try:
                    p.invocation = tool.build(request.args)
                    p.invocation.call_id = request.call_id
                except ToolError as exc:
                    problem = str(exc)
            if problem is not None:
                p.error = f"Invalid parameters for {tool.name}: {problem}"
                p.error_type = "invalid_tool_params"
            title = tool.display_name
            locations: tuple[ev.Location, ...] = ()
            if p.invocation is not None:
                title = p.invocation.describe()
                locations = tuple(p.invocation.locations())
            p.info = ev.ToolCallInfo(request.call_id, tool.name, request.args, title, tool.kind, locations)
            if p.error is None:
                p.decision, p.deny_reason = self.policy.decide(tool, request.args)
        self.emit(ev.ToolCallRequest(p.info))
        self.emit(ev.ToolCallStatusChange(request.call_id, "validating"))
        return p

    async def _run_group(self, group: list[_Prepared], outcomes: dict[str, CallOutcome]) -> None:
        if len(group) == 1:
            await self._run_one(group[0], outcomes)
        elif group:
            async with asyncio.TaskGroup() as tg:
                for p in group:
                    tg.create_task(self._run_one(p, outcomes))

    async def _run_one(self, p: _Prepared, outcomes: dict[str, CallOutcome]) -> None:
        if p.error is not None or p.tool is None or p.invocation is None:
            error = p.error or "invalid call"
            self._finish(p, outcomes, "error", {"error": error}, error=error, error_type=p.error_type)
            return
        if p.decision == "deny":
            why = p.deny_reason
            self._finish(p, outcomes, "error", {"error": why}, error=why, error_type="policy_violation")
            return
        if p.decision == "ask" and not self.policy.interactive:
            # Nobody can answer: the model reads why (Gemini CLI's words) and carries on without the call.
            why = (
                f'Tool execution for "{p.tool.display_name or p.tool.name}" requires user confirmation, '
                "which is not supported in non-interactive mode."
            )
            # Gemini CLI 0.61 throws here, so its headless output calls it an unhandled exception.
            self._finish(p, outcomes, "error", {"error": why}, error=why, error_type="unhandled_exception")
            return
        try:
            # Edit tools work out their change here (and the text it is based on), even when nobody is asked:
            # "0 matches" or "file already exists" surface now, as results the model reads.
            needs_details = p.decision == "ask" or p.tool.kind in MUTATING_KINDS
            details = await p.invocation.confirmation() if needs_details else None
        except ToolError as exc:
            self._finish(p, outcomes, "error", {"error": str(exc)}, error=str(exc), error_type=exc.error_type)
            return
        if p.decision == "ask" and details is not None and not await self._confirm(p, details, outcomes):
            return
        self.emit(ev.ToolCallStatusChange(p.info.call_id, "scheduled"))
        if self.checkpointer is not None and p.tool.kind in MUTATING_KINDS:
            try:
                await self.checkpointer.before_tool(p.info, self.history())
            except Exception as exc:  # a failed snapshot must not block the user's work, but they must know
                log.warning("checkpoint failed before %s: %s", p.info.name, exc)
                self.emit(ev.Notice("warning", f"Checkpoint before {p.info.name} failed: {exc}"))
        changed: tuple[str, ...] = ()
        if self.hooks is not None and self.hooks.has("BeforeTool", p.tool.name):
            before = await before_tool(self.hooks, p.tool, p.request.args, p.info.call_id, self.emit)
            if before.error is not None:
                self._finish(
                    p,
                    outcomes,
                    "error",
                    {"error": before.error},
                    error=before.error,
                    error_type=before.error_type,
                    stopped=before.stopped,
                )
                return
            if before.invocation is not None:
                p.invocation, changed = before.invocation, before.changed
        self.emit(ev.ToolCallStatusChange(p.info.call_id, "executing"))
        started = time.perf_counter()
        call_id = p.info.call_id
        try:
            result = await p.invocation.execute(lambda chunk: self.emit(ev.ToolOutput(call_id, chunk)))
        except ToolError as exc:
            result = ToolResult(llm_content=str(exc), error=str(exc), error_type=exc.error_type)
        except asyncio.CancelledError:
            self._cancel(p, outcomes, "Cancelled by the user while running.", started)
            raise
        except Exception as exc:
            # A tool bug still answers the model (the history must stay valid), and is logged loudly.
            log.exception("tool %s crashed", p.info.name)
            message = f"Tool crashed: {exc!r}"
            result = ToolResult(llm_content=message, error=message, error_type="unhandled_exception")
        if changed:
            result = note_changed(result, changed)
        stopped = None
        if self.hooks is not None and self.hooks.has("AfterTool", p.tool.name):
            args = dict(p.request.args)
            result, stopped = await after_tool(self.hooks, p.tool.name, args, result, self.emit)
        self._deliver(p, result, outcomes, started, stopped)

    async def _confirm(self, p: _Prepared, details: ev.ConfirmationDetails, outcomes: dict[str, CallOutcome]) -> bool:
        assert p.tool is not None and p.invocation is not None
        verdict = await self.approval.ask(p.info, p.tool, p.invocation, details)
        if not verdict.run:
            why = verdict.why
            self._finish(
                p,
                outcomes,
                verdict.status,
                {"error": why},
                error=why,
                error_type=verdict.error_type,
                declined=verdict.declined,
            )
        return verdict.run

    def _deliver(
        self,
        p: _Prepared,
        result: ToolResult,
        outcomes: dict[str, CallOutcome],
        started: float,
        stopped: str | None = None,
    ) -> None:
        truncate = p.tool is not None and p.tool.truncate_output
        text, extra = answer_text(
            result,
            truncate_at=self.truncate_threshold if truncate else None,
            temp_dir=self.temp_dir,
            call_id=p.info.call_id,
            tool_name=p.info.name,
            jit_memory=self.jit_memory,
        )
        if result.plan is not None:
            self.emit(ev.Plan(result.plan))
        status: Literal["success", "error"] = "error" if result.error else "success"
        response = {"error": text} if result.error else {"output": text}
        self._finish(
            p,
            outcomes,
            status,
            response,
            extra=extra,
            display=result.display,
            diff=result.diff,
            error=result.error,
            error_type=(result.error_type or "execution_failed") if result.error else None,
            started=started,
            stopped=stopped,
        )

    def _cancel(
        self,
        p: _Prepared,
        outcomes: dict[str, CallOutcome],
        why: str,
        started: float | None = None,
        *,
        declined: bool = False,
    ) -> None:
        self._finish(p, outcomes, "cancelled", {"error": why}, error=why, started=started, declined=declined)

    def _finish(
        self,
        p: _Prepared,
        outcomes: dict[str, CallOutcome],
        status: Literal["success", "error", "cancelled"],
        response: dict[str, Any],
        *,
        extra: list[Part] | None = None,
        display: str | None = None,
        diff: ev.FileDiff | None = None,
        error: str | None = None,
        error_type: str | None = None,
        started: float | None = None,
        declined: bool = False,
        stopped: str | None = None,
    ) -> None:
        duration = (time.perf_counter() - started) * 1000 if started is not None else 0.0
        outcomes[p.info.call_id] = CallOutcome(
            p.info.call_id, p.info.name, status, response, extra or [], declined, stopped
        )
        self.emit(
            ev.ToolCallResponse(
                call_id=p.info.call_id,
                name=p.info.name,
                status=status,
                display=display,
                diff=diff,
                error=error,
                error_type=error_type,
                duration_ms=round(duration, 3),
                locations=p.info.locations,
            )
        )


def function_responses(
    calls: Sequence[ToolCallRequestInfo], model_ids: Mapping[str, str | None], outcomes: Mapping[str, CallOutcome]
) -> list[Part]:
    """The answer to every call of a turn, in the model's order (a call the batch never reached was cancelled),
    followed by the media parts results carried."""
    responses: list[Part] = []
    extra: list[Part] = []
    for call in calls:
        outcome = outcomes.get(call.call_id)
        response = outcome.response if outcome else {"error": "Cancelled by the user."}
        answer = FunctionResponse(name=call.name, response=response, id=model_ids.get(call.call_id))
        responses.append(Part(function_response=answer))
        if outcome:
            extra.extend(outcome.extra_parts)
    return responses + extra
