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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from agent_lsp import events as ev
from agent_lsp.core.ports import Checkpointer, Confirmer, Decision, Hooks, JitMemory, ToolPolicy, ToolSet
from agent_lsp.core.tool import Tool, ToolCallRequestInfo, ToolInvocation, ToolResult
from agent_lsp.core.tool_hooks import after_tool, before_tool, note_changed
from agent_lsp.errors import ToolError
from agent_lsp.model.base import Content, Part

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
        self.confirmer = confirmer
        self.emit = emit
        self.delivered = delivered
        self.temp_dir = temp_dir
        self.checkpointer = checkpointer
        self.jit_memory = jit_memory
        self.history = history
        self.on_save_rule = on_save_rule
        # security.enablePermanentToolApproval: "allow in all future sessions" is offered where a rule can be saved.
        self.permanent_approval = permanent_approval
        self.truncate_threshold = truncate_threshold
        self.hooks = hooks

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
        saved_rules = self._savable_rules(p.tool, details)
        if saved_rules:
            details = replace(details, savable=True)
        self.emit(ev.ToolCallStatusChange(p.info.call_id, "awaiting_approval"))
        self.emit(ev.ToolCallConfirmation(p.info, details))
        heard = self._notify_hooks(p.info, details)
        if self.delivered is not None:
            # The confirmer asks outside the event stream: everything emitted before the question (the model's
            # text, this tool call) must reach the editor first.
            await self.delivered()
        try:
            answer = await self.confirmer.confirm(p.info, details)
        except BaseException:
            if heard is not None:
                heard.cancel()  # the runner kills the hook's process group
            raise
        if heard is not None:
            await heard  # bounded by the hooks' timeouts; it ran while the user was deciding
        if answer.outcome == "reject":
            # As Gemini CLI does over ACP: the model reads that the user said no and answers in the same turn.
            self._cancel(p, outcomes, rejected_message(p.info.name))
            return False
        if answer.outcome == "cancel":
            self._cancel(p, outcomes, "The user cancelled the request at this call.", declined=True)
            return False
        if answer.outcome in ("proceed_always", "proceed_always_server", "proceed_always_save"):
            scope: Literal["tool", "server"] = "server" if answer.outcome == "proceed_always_server" else "tool"
            self.policy.remember(p.tool, details, scope)
            if answer.outcome == "proceed_always_save" and self.on_save_rule is not None and saved_rules:
                # Only what was offered is saved: a confirmer's "save" to a question that did not offer it is an
                # "allow always" for this session.
                self.on_save_rule(saved_rules)
        if answer.outcome == "modify" and answer.modified_content is not None:
            if not p.invocation.modifiable:
                # What the user approved is their edit, which this call cannot apply: run nothing rather than
                # the proposal they changed.
                why = f'The user edited the proposal of "{p.info.name}", which cannot apply edits, so it was not run.'
                self.emit(ev.Notice("warning", f"{p.info.name} cannot apply an edited proposal; nothing was run."))
                self._finish(p, outcomes, "error", {"error": why}, error=why, error_type="invalid_tool_params")
                return False
            p.invocation.apply_modification(answer.modified_content)
        return True

    def _savable_rules(self, tool: Tool, details: ev.ConfirmationDetails) -> list[str]:
        """The rules "allow in all future sessions" would write, when it may be offered; else none."""
        if not self.permanent_approval or self.on_save_rule is None:
            return []
        return self.policy.rule_for(tool, details)

    def _notify_hooks(self, info: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> asyncio.Task[Any] | None:
        """Notification hooks hear about the question while it is asked; they only observe it."""
        hooks = self.hooks
        if hooks is None or not hooks.has("Notification", "ToolPermission"):
            return None
        payload = {
            "notification_type": "ToolPermission",
            "message": f"Tool {info.name} requires permission: {details.title}",
            "details": {"tool_name": info.name, "title": details.title, "type": details.type, "args": info.args},
        }
        return asyncio.get_running_loop().create_task(hooks.fire("Notification", payload, "ToolPermission"))

    def _deliver(
        self,
        p: _Prepared,
        result: ToolResult,
        outcomes: dict[str, CallOutcome],
        started: float,
        stopped: str | None = None,
    ) -> None:
        text, extra = _split_content(result.llm_content)
        if p.tool is not None and p.tool.truncate_output and len(text) > self.truncate_threshold:
            from agent_lsp.core.truncation import truncate_for_model

            text, _saved = truncate_for_model(
                text,
                threshold=self.truncate_threshold,
                temp_dir=self.temp_dir,
                call_id=p.info.call_id,
                tool_name=p.info.name,
            )
        if self.jit_memory is not None and result.touched_paths:
            extra_context = self.jit_memory.context_for(list(result.touched_paths))
            if extra_context:
                text += "\n\n" + extra_context
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


def rejected_message(tool_name: str) -> str:
    """What the model reads when the user rejected a call (Gemini CLI's wording over ACP)."""
    return f'Tool "{tool_name}" was canceled by the user.'


def _split_content(content: str | list[Part]) -> tuple[str, list[Part]]:
    if isinstance(content, str):
        return content, []
    texts = [p.text for p in content if p.text]
    extra = [p for p in content if p.inline_data is not None]
    return "\n".join(texts), extra


def tool_suggestion(name: str, names: Sequence[str], top: int = 3) -> str:
    """ " Did you mean …?" with the closest names by edit distance, as Gemini CLI words it."""
    ranked = sorted(names, key=lambda n: _distance(name, n))[:top]
    if not ranked:
        return ""
    quoted = ", ".join(f'"{n}"' for n in ranked)
    return f" Did you mean one of: {quoted}?" if len(ranked) > 1 else f" Did you mean {quoted}?"


def _distance(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]
