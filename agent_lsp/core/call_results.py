"""How each call of a batch ends, once: its outcome for the model (a functionResponse to be) and its
``tool_call_response`` event for the editor; ``AnswerOptions`` say how a result is cut to what the model reads."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent_lsp import events as ev
from agent_lsp.core.approval import Refusal
from agent_lsp.core.edit_checks import EditChecks
from agent_lsp.core.ports import JitMemory
from agent_lsp.core.tool import ToolResult
from agent_lsp.core.tool_answers import answer_text
from agent_lsp.core.tool_calls import CallOutcome, Cancelled, Failed, PreparedCall, ReadyCall, RunningCall, Succeeded

DEFAULT_TRUNCATE_THRESHOLD = 40_000


@dataclass(frozen=True)
class AnswerOptions:
    """How a result becomes what the model reads: long output cut at ``truncate_threshold`` characters (the
    whole kept in ``temp_dir``), just-in-time memory of the folders a call touched added, and the problems an edit
    introduced (``edit_checks``; the scheduler runs them around the call)."""

    temp_dir: Path
    truncate_threshold: int = DEFAULT_TRUNCATE_THRESHOLD
    jit_memory: JitMemory | None = None
    edit_checks: EditChecks | None = None  # what a file-changing call's edit broke, added to its result


class CallResults:
    """Fills the caller's ``outcomes`` as the calls of a batch end, so a cancelled batch keeps what finished. Each
    ending is its own type (``Succeeded``, ``Failed``, ``Cancelled``); a running call's ending has a duration."""

    def __init__(
        self, outcomes: dict[str, CallOutcome], emit: Callable[[ev.AgentEvent], None], answers: AnswerOptions
    ) -> None:
        self.outcomes = outcomes
        self.emit = emit
        self.answers = answers

    @property
    def declined(self) -> bool:
        """The user cancelled at a confirmation: the rest of the batch is not run."""
        return any(o.declined for o in self.outcomes.values())

    def result(self, running: RunningCall, result: ToolResult, stopped: str | None = None) -> None:
        """The call ran: the model reads its result (cut to size, just-in-time memory added)."""
        answers, call = self.answers, running.call
        text, extra = answer_text(
            result,
            truncate_at=answers.truncate_threshold if call.tool.truncate_output else None,
            temp_dir=answers.temp_dir,
            call_id=call.info.call_id,
            tool_name=call.info.name,
            jit_memory=answers.jit_memory,
        )
        if result.plan is not None:
            self.emit(ev.Plan(result.plan))
        if result.title and not result.error:
            self.emit(ev.SessionTitle(result.title))
        info, parts = call.info, tuple(extra)
        if result.error:
            error_type = result.error_type or "execution_failed"
            ending: CallOutcome = Failed(info.call_id, info.name, {"error": text}, parts, stopped)
            self._end(ending, info, _since(running), result.display, result.diff, result.error, error_type)
        else:
            ending = Succeeded(info.call_id, info.name, {"output": text}, parts, stopped)
            self._end(ending, info, _since(running), result.display, result.diff, extra_diffs=result.extra_diffs)

    def fail(self, call: PreparedCall, why: str, error_type: str | None, *, stopped: str | None = None) -> None:
        """The call ends as an error before it ran (invalid, denied, refused, stopped by a BeforeTool hook)."""
        info = call.info
        self._end(
            Failed(info.call_id, info.name, {"error": why}, stopped=stopped), info, error=why, error_type=error_type
        )

    def cancel(self, call: PreparedCall | RunningCall, why: str, *, declined: bool = False) -> None:
        """The call ends cancelled: before it ran, or while it ran (then with its duration)."""
        info = call.info
        duration = _since(call) if isinstance(call, RunningCall) else 0.0
        self._end(Cancelled(info.call_id, info.name, {"error": why}, declined), info, duration, error=why)

    def refuse(self, call: ReadyCall, refused: Refusal) -> None:
        """The user's answer (or the edit it carried) keeps the call from running."""
        if refused.status == "error":
            self.fail(call, refused.why, refused.error_type)
        else:
            self.cancel(call, refused.why, declined=refused.declined)

    def _end(
        self,
        ending: CallOutcome,
        info: ev.ToolCallInfo,
        duration: float = 0.0,
        display: str | None = None,
        diff: ev.FileDiff | None = None,
        error: str | None = None,
        error_type: str | None = None,
        *,
        extra_diffs: tuple[ev.FileDiff, ...] = (),
    ) -> None:
        self.outcomes[info.call_id] = ending
        self.emit(
            ev.ToolCallResponse(
                call_id=info.call_id,
                name=info.name,
                status=ending.status,
                display=display,
                diff=diff,
                error=error,
                error_type=error_type,
                duration_ms=round(duration, 3),
                locations=info.locations,
                extra_diffs=extra_diffs,
            )
        )


def _since(running: RunningCall) -> float:
    """Milliseconds since the call started executing."""
    return (time.perf_counter() - running.started) * 1000
