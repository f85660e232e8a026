"""The tool scheduler: validate, decide, confirm, checkpoint, execute; every state change is an event.

Read-only calls that need no approval run in parallel; everything else runs one at a time in the
order the model asked. A rejected call is answered "canceled by the user" and the batch goes on (the model
reads it and may propose something else); a cancelled confirmation cancels the rest of the batch and the turn.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from agent_lsp import events as ev
from agent_lsp.core.approval import Approval
from agent_lsp.core.approval import rejected_message as rejected_message  # kept importable from here
from agent_lsp.core.call_endings import CallEndings
from agent_lsp.core.ports import Checkpointer, Confirmer, Hooks, JitMemory, ToolPolicy, ToolSet
from agent_lsp.core.tool import ToolCallRequestInfo, ToolResult
from agent_lsp.core.tool_calls import CallOutcome as CallOutcome  # the session reads it from here
from agent_lsp.core.tool_calls import PreparedCall, bare, prepare
from agent_lsp.core.tool_hooks import after_tool, before_tool, note_changed
from agent_lsp.errors import ToolError
from agent_lsp.model.base import Content
from agent_lsp.vocabulary import ApprovalMode

log = logging.getLogger(__name__)
DEFAULT_TRUNCATE_THRESHOLD = 40_000
MUTATING_KINDS = ("edit", "delete", "move")


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
        ends = CallEndings(
            outcomes,
            self.emit,
            temp_dir=self.temp_dir,
            truncate_threshold=self.truncate_threshold,
            jit_memory=self.jit_memory,
        )
        prepared: list[PreparedCall] = []
        try:
            prepared = [self._prepare(c) for c in calls]
            group: list[PreparedCall] = []
            for p in prepared:
                if p.parallel:
                    group.append(p)
                    continue
                await self._run_group(group, ends)
                group = []
                if ends.declined:
                    ends.cancel(p, "Cancelled because the user declined an earlier call in this batch.")
                    continue
                await self._run_one(p, ends)
            await self._run_group(group, ends)
        finally:
            # Cancelled (or crashed) mid-batch: every call still gets an answer, in the model's order.
            for c in calls:
                if c.call_id not in outcomes:
                    match = next((p for p in prepared if p.request.call_id == c.call_id), None)
                    ends.cancel(match or bare(c), "Cancelled by the user.")

    def _prepare(self, request: ToolCallRequestInfo) -> PreparedCall:
        p = prepare(self.registry, self.policy, request)
        self.emit(ev.ToolCallRequest(p.info))
        self.emit(ev.ToolCallStatusChange(request.call_id, "validating"))
        return p

    async def _run_group(self, group: list[PreparedCall], ends: CallEndings) -> None:
        if len(group) == 1:
            await self._run_one(group[0], ends)
        elif group:
            async with asyncio.TaskGroup() as tg:
                for p in group:
                    tg.create_task(self._run_one(p, ends))

    async def _run_one(self, p: PreparedCall, ends: CallEndings) -> None:
        if p.error is not None or p.tool is None or p.invocation is None:
            error = p.error or "invalid call"
            ends.fail(p, error, p.error_type)
            return
        if p.decision == "deny":
            why = p.deny_reason
            ends.fail(p, why, "policy_violation")
            return
        if p.decision == "ask" and not self.policy.interactive:
            # Nobody can answer: the model reads why (Gemini CLI's words) and carries on without the call.
            why = (
                f'Tool execution for "{p.tool.display_name or p.tool.name}" requires user confirmation, '
                "which is not supported in non-interactive mode."
            )
            # Gemini CLI 0.61 throws here, so its headless output calls it an unhandled exception.
            ends.fail(p, why, "unhandled_exception")
            return
        try:
            # Edit tools work out their change here (and the text it is based on), even when nobody is asked:
            # "0 matches" or "file already exists" surface now, as results the model reads.
            needs_details = p.decision == "ask" or p.tool.kind in MUTATING_KINDS
            details = await p.invocation.confirmation() if needs_details else None
        except ToolError as exc:
            ends.fail(p, str(exc), exc.error_type)
            return
        if p.decision == "ask" and details is not None and not await self._confirm(p, details, ends):
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
                ends.fail(p, before.error, before.error_type, stopped=before.stopped)
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
            ends.cancel(p, "Cancelled by the user while running.", started)
            raise
        except Exception as exc:
            # A tool bug still answers the model (the history must stay valid), and is logged loudly.
            log.exception("tool %s crashed", p.info.name)
            message = f"Tool crashed: {exc!r}"
            result = ToolResult(llm_content=message, error=message, error_type="unhandled_exception")
        if changed:
            result = note_changed(result, changed)
        if result.mode is not None and not result.error:
            result = self._switch_mode(result, result.mode)
        stopped = None
        if self.hooks is not None and self.hooks.has("AfterTool", p.tool.name):
            args = dict(p.request.args)
            result, stopped = await after_tool(self.hooks, p.tool.name, args, result, self.emit)
        ends.result(p, result, started, stopped)

    def _switch_mode(self, result: ToolResult, mode: ApprovalMode) -> ToolResult:
        """A tool asked for another approval mode (enter/exit_plan_mode): switched here, where the policy is."""
        refused = self.policy.set_mode(mode)
        if refused:
            message = f"Could not switch to {mode} mode: {refused}."
            return ToolResult(llm_content=message, error=message, error_type="execution_failed")
        self.emit(ev.ModeChanged(mode))
        return result

    async def _confirm(self, p: PreparedCall, details: ev.ConfirmationDetails, ends: CallEndings) -> bool:
        assert p.tool is not None and p.invocation is not None
        verdict = await self.approval.ask(p.info, p.tool, p.invocation, details)
        if not verdict.run:
            why = verdict.why
            ends.end(
                p,
                verdict.status,
                {"error": why},
                error=why,
                error_type=verdict.error_type,
                declined=verdict.declined,
            )
        return verdict.run
