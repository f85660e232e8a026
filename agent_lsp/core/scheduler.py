"""The tool scheduler: validate, decide, confirm, checkpoint, execute; every state change is an event.

Read-only calls that need no approval run in parallel; everything else runs one at a time in the
order the model asked. A rejected call is answered "canceled by the user" and the batch goes on (the model
reads it and may propose something else); a cancelled confirmation cancels the rest of the batch and the turn.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from agent_lsp import events as ev
from agent_lsp.core.approval import Approval, Refusal
from agent_lsp.core.call_results import AnswerOptions, CallResults
from agent_lsp.core.ports import Checkpointer, ToolPolicy, ToolSet
from agent_lsp.core.tool import ToolCallRequestInfo, ToolResult
from agent_lsp.core.tool_calls import (
    CallOutcome,
    InvalidCall,
    PreparedCall,
    ReadyCall,
    RunningCall,
    prepare,
    unprepared,
)
from agent_lsp.core.tool_hooks import after_tool, before_tool, note_changed
from agent_lsp.errors import ToolError
from agent_lsp.model.base import Content
from agent_lsp.vocabulary import ApprovalMode

if TYPE_CHECKING:
    from agent_lsp.core.ports import Hooks

log = logging.getLogger(__name__)
MUTATING_KINDS = ("edit", "delete", "move")


class Scheduler:
    """Runs one batch of calls (a fresh scheduler per batch); every call gets exactly one answer. Built from
    parts: the ``Approval`` that asks the user, the ``AnswerOptions`` that shape what the model reads."""

    def __init__(
        self,
        registry: ToolSet,
        policy: ToolPolicy,
        approval: Approval,
        emit: Callable[[ev.AgentEvent], None],
        *,
        answers: AnswerOptions,
        checkpointer: Checkpointer | None = None,
        history: Callable[[], Sequence[Content]] = tuple,
        hooks: Hooks | None = None,
    ) -> None:
        self.registry = registry
        self.policy = policy
        self.approval = approval
        self.emit = emit
        self.answers = answers
        self.checkpointer = checkpointer
        self.history = history
        self.hooks = hooks

    async def run(self, calls: Sequence[ToolCallRequestInfo], outcomes: dict[str, CallOutcome]) -> None:
        """Run a batch, filling ``outcomes`` as calls finish (so a cancelled batch still answers every call)."""
        results = CallResults(outcomes, self.emit, self.answers)
        prepared: list[PreparedCall] = []
        try:
            prepared = [self._prepare(c) for c in calls]
            group: list[PreparedCall] = []
            for call in prepared:
                if call.parallel:
                    group.append(call)
                    continue
                await self._run_group(group, results)
                group = []
                if results.declined:
                    results.cancel(call, "Cancelled because the user declined an earlier call in this batch.")
                    continue
                await self._run_one(call, results)
            await self._run_group(group, results)
        finally:
            # Cancelled (or crashed) mid-batch: every call still gets an answer, in the model's order.
            for c in calls:
                if c.call_id not in outcomes:
                    match = next((p for p in prepared if p.request.call_id == c.call_id), None)
                    results.cancel(match or unprepared(c), "Cancelled by the user.")

    def _prepare(self, request: ToolCallRequestInfo) -> PreparedCall:
        call = prepare(self.registry, self.policy, request)
        self.emit(ev.ToolCallRequest(call.info))
        self.emit(ev.ToolCallStatusChange(request.call_id, "validating"))
        return call

    async def _run_group(self, group: list[PreparedCall], results: CallResults) -> None:
        if len(group) == 1:
            await self._run_one(group[0], results)
        elif group:
            async with asyncio.TaskGroup() as tg:
                for call in group:
                    tg.create_task(self._run_one(call, results))

    async def _run_one(self, call: PreparedCall, results: CallResults) -> None:
        """validating → (awaiting_approval) → scheduled → executing → its end; an invalid call ends at once."""
        if isinstance(call, InvalidCall):
            results.fail(call, call.error, call.error_type)
            return
        if not await self._approved(call, results):
            return
        self.emit(ev.ToolCallStatusChange(call.info.call_id, "scheduled"))
        checkpointer = await self._checkpoint(call)
        try:
            await self._execute(call, results)
        finally:
            if checkpointer is not None:
                await self._after_checkpoint(checkpointer, call)

    async def _approved(self, call: ReadyCall, results: CallResults) -> bool:
        """The policy's decision carried out: denied, refused for want of someone to ask, asked, or allowed."""
        if call.decision == "deny":
            results.fail(call, call.deny_reason, "policy_violation")
            return False
        if call.decision == "ask" and not self.policy.interactive:
            # Nobody can answer: the model reads why (Gemini CLI's words) and carries on without the call.
            why = (
                f'Tool execution for "{call.tool.display_name or call.tool.name}" requires user confirmation, '
                "which is not supported in non-interactive mode."
            )
            # Gemini CLI 0.61 throws here, so its headless output calls it an unhandled exception.
            results.fail(call, why, "unhandled_exception")
            return False
        try:
            # Edit tools work out their change here (and the text it is based on), even when nobody is asked:
            # "0 matches" or "file already exists" surface now, as results the model reads.
            needs_details = call.decision == "ask" or call.tool.kind in MUTATING_KINDS
            details = await call.invocation.confirmation() if needs_details else None
        except ToolError as exc:
            results.fail(call, str(exc), exc.error_type)
            return False
        if call.decision == "ask" and details is not None:
            return await self._confirm(call, details, results)
        return True

    def _switch_mode(self, result: ToolResult, mode: ApprovalMode) -> ToolResult:
        """A tool asked for another approval mode (enter_plan_mode): switched here, where the policy is."""
        refused = self.policy.set_mode(mode)
        if refused:
            message = f"Could not switch to {mode} mode: {refused}."
            return ToolResult(llm_content=message, error=message, error_type="execution_failed")
        self.emit(ev.ModeChanged(mode))
        return result

    async def _confirm(self, call: ReadyCall, details: ev.ConfirmationDetails, results: CallResults) -> bool:
        verdict = await self.approval.ask(call.info, call.tool, call.invocation, details)
        if isinstance(verdict, Refusal):
            results.refuse(call, verdict)
            return False
        return True

    async def _checkpoint(self, call: ReadyCall) -> Checkpointer | None:
        """A snapshot before a file-changing call; a failed one must not block the user's work, but they must know.
        The checkpointer that took it (to take the one after), or None when none was taken."""
        checkpointer = self.checkpointer
        if checkpointer is None or call.tool.kind not in MUTATING_KINDS:
            return None
        try:
            await checkpointer.before_tool(call.info, self.history())
        except Exception as exc:
            log.warning("checkpoint failed before %s: %s", call.info.name, exc)
            self.emit(ev.Notice("warning", f"Checkpoint before {call.info.name} failed: {exc}"))
            return None
        return checkpointer

    async def _after_checkpoint(self, checkpointer: Checkpointer, call: ReadyCall) -> None:
        """The snapshot after it (what rewind tells the agent's changes by); a failure only weakens rewind."""
        try:
            await checkpointer.after_tool(call.info)
        except Exception as exc:
            log.warning("checkpoint after %s failed: %s", call.info.name, exc)

    async def _execute(self, call: ReadyCall, results: CallResults) -> None:
        """BeforeTool hooks, the tool itself (its crash is a result too), AfterTool hooks, then the call's end."""
        changed: tuple[str, ...] = ()
        hooks, call_id = self.hooks, call.info.call_id
        if hooks is not None and hooks.has("BeforeTool", call.tool.name):
            before = await before_tool(hooks, call.tool, call.request.args, call_id, self.emit)
            if before.error is not None:
                results.fail(call, before.error, before.error_type, stopped=before.stopped)
                return
            if before.invocation is not None:
                call, changed = replace(call, invocation=before.invocation), before.changed
        self.emit(ev.ToolCallStatusChange(call_id, "executing"))
        running = RunningCall(call, time.perf_counter())
        # Diagnostics after each file-changing call (None: switched off, or no code intelligence).
        checks = self.answers.edit_checks if call.tool.kind in MUTATING_KINDS else None
        try:
            snapshot = await checks.before([loc.path for loc in call.invocation.locations()]) if checks else None
            result = await call.invocation.execute(lambda chunk: self.emit(ev.ToolOutput(call_id, chunk)))
            if checks is not None:
                result = await checks.after(snapshot, result)
        except ToolError as exc:
            result = ToolResult(llm_content=str(exc), error=str(exc), error_type=exc.error_type)
        except asyncio.CancelledError:
            results.cancel(running, "Cancelled by the user while running.")
            raise
        except Exception as exc:
            # A tool bug still answers the model (the history must stay valid), and is logged loudly.
            log.exception("tool %s crashed", call.info.name)
            message = f"Tool crashed: {exc!r}"
            result = ToolResult(llm_content=message, error=message, error_type="unhandled_exception")
        if changed:
            result = note_changed(result, changed)
        if result.mode is not None and not result.error:
            result = self._switch_mode(result, result.mode)
        stopped = None
        if hooks is not None and hooks.has("AfterTool", call.tool.name):
            result, stopped = await after_tool(hooks, call.tool.name, dict(call.request.args), result, self.emit)
        results.result(running, result, stopped)
