"""How each call of a batch ends, once: its outcome for the model (a functionResponse to be) and its
``tool_call_response`` event for the editor; ``AnswerOptions`` say how a result is cut to what the model reads."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_lsp import events as ev
from agent_lsp.core.ports import JitMemory
from agent_lsp.core.tool import ToolResult
from agent_lsp.core.tool_answers import answer_text
from agent_lsp.core.tool_calls import CallOutcome, PreparedCall, ReadyCall, Status
from agent_lsp.model.base import Part

DEFAULT_TRUNCATE_THRESHOLD = 40_000


@dataclass(frozen=True)
class AnswerOptions:
    """How a result becomes what the model reads: long output cut at ``truncate_threshold`` characters (the
    whole kept in ``temp_dir``), just-in-time memory of the folders a call touched added."""

    temp_dir: Path
    truncate_threshold: int = DEFAULT_TRUNCATE_THRESHOLD
    jit_memory: JitMemory | None = None


class CallResults:
    """Fills the caller's ``outcomes`` as the calls of a batch end, so a cancelled batch keeps what finished."""

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

    def result(self, call: ReadyCall, result: ToolResult, started: float, stopped: str | None = None) -> None:
        """The call ran: the model reads its result (cut to size, just-in-time memory added)."""
        answers = self.answers
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
        status: Status = "error" if result.error else "success"
        response = {"error": text} if result.error else {"output": text}
        self.end(
            call,
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

    def fail(self, call: PreparedCall, why: str, error_type: str | None, **kw: Any) -> None:
        self.end(call, "error", {"error": why}, error=why, error_type=error_type, **kw)

    def cancel(self, call: PreparedCall, why: str, started: float | None = None, *, declined: bool = False) -> None:
        self.end(call, "cancelled", {"error": why}, error=why, started=started, declined=declined)

    def end(
        self,
        call: PreparedCall,
        status: Status,
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
        info = call.info
        self.outcomes[info.call_id] = CallOutcome(
            info.call_id, info.name, status, response, extra or [], declined, stopped
        )
        self.emit(
            ev.ToolCallResponse(
                call_id=info.call_id,
                name=info.name,
                status=status,
                display=display,
                diff=diff,
                error=error,
                error_type=error_type,
                duration_ms=round(duration, 3),
                locations=info.locations,
            )
        )
