"""Headless output in Gemini CLI's shapes: session stats from the event stream, ``json`` and ``stream-json``."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from agent_lsp import events as ev
from agent_lsp import linediff

DECISIONS = ("accept", "reject", "modify", "auto_accept")


def timestamp() -> str:
    """ISO 8601 UTC with milliseconds and a ``Z``, as JavaScript's ``toISOString`` writes it."""
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def _tokens() -> dict[str, int]:
    return {"input": 0, "prompt": 0, "candidates": 0, "total": 0, "cached": 0, "thoughts": 0, "tool": 0}


@dataclass
class _ModelStats:
    requests: int = 0
    errors: int = 0
    latency_ms: float = 0.0
    errors_by_type: dict[str, int] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=_tokens)  # the main loop's responses
    metered: ev.ModelUsage | None = None  # every call made for the session with this model (the ledger's)

    @property
    def all_tokens(self) -> dict[str, int]:
        """The model's tokens over every call made for the session (subagents, compression, web tools too)."""
        m = self.metered
        if m is None:
            return dict(self.tokens)
        u = m.usage
        prompt, cached = u.prompt_tokens, u.cached_tokens
        return {**_tokens(), "input": max(0, prompt - cached), "prompt": prompt, "candidates": u.candidates_tokens} | {
            "total": u.total_tokens,
            "cached": cached,
            "thoughts": u.thoughts_tokens,
        }

    def to_json(self) -> dict[str, Any]:
        api = {
            "totalRequests": self.metered.requests if self.metered is not None else self.requests,
            "totalErrors": self.errors,
            "totalLatencyMs": round(self.latency_ms),
            "errorsByType": dict(self.errors_by_type),
        }
        role = {
            "totalRequests": self.requests,
            "totalErrors": self.errors,
            "totalLatencyMs": round(self.latency_ms),
            "tokens": dict(self.tokens),
        }
        out = {"api": api, "tokens": self.all_tokens, "roles": {"main": role}}
        if self.metered is not None and self.metered.cost is not None:
            out["cost"] = {
                "amount": self.metered.cost,
                "currency": "USD",
            }  # agent-lsp's estimate (absent: no known price)
        return out


@dataclass
class _ToolStats:
    count: int = 0
    success: int = 0
    fail: int = 0
    duration_ms: float = 0.0
    decisions: dict[str, int] = field(default_factory=lambda: dict.fromkeys(DECISIONS, 0))


class SessionStats:
    """Gemini CLI's session metrics (models / tools / files), counted from our event stream."""

    def __init__(self, model: str) -> None:
        from agent_lsp.model.catalog import resolve_model

        self.model = resolve_model(model)
        self.models: dict[str, _ModelStats] = {}
        self.tools: dict[str, _ToolStats] = {}
        self.lines_added = 0
        self.lines_removed = 0
        self._asked: set[str] = set()
        self._modified: set[str] = set()
        self._request_started = time.perf_counter()

    def _current(self) -> _ModelStats:
        return self.models.setdefault(self.model, _ModelStats())

    def observe(self, event: ev.AgentEvent) -> None:
        if isinstance(event, ev.ModelFallback):
            self.model = event.to_model
        elif isinstance(event, ev.UserMessage | ev.ToolCallResponse):
            self._request_started = time.perf_counter()
        elif isinstance(event, ev.Retry):
            stats = self._current()
            stats.errors += 1
            key = event.reason.split(":", 1)[0].strip() or "error"
            stats.errors_by_type[key] = stats.errors_by_type.get(key, 0) + 1
            self._request_started = time.perf_counter()
        elif isinstance(event, ev.Error):
            stats = self._current()
            stats.requests += 1
            stats.errors += 1
            key = str(event.status) if event.status else "error"
            stats.errors_by_type[key] = stats.errors_by_type.get(key, 0) + 1
        elif isinstance(event, ev.Finished):
            self._finished(event)
        elif isinstance(event, ev.Stop) and event.session_usage is not None:
            for metered in event.session_usage.by_model:
                self.models.setdefault(metered.model, _ModelStats()).metered = metered
        elif isinstance(event, ev.ToolCallConfirmation):
            self._asked.add(event.call.call_id)
        if isinstance(event, ev.ToolCallResponse):
            self._tool(event)

    def _finished(self, event: ev.Finished) -> None:
        stats = self._current()
        stats.requests += 1
        stats.latency_ms += (time.perf_counter() - self._request_started) * 1000
        u = event.usage
        if u is not None:
            t = stats.tokens
            t["prompt"] += u.prompt_tokens
            t["input"] += max(0, u.prompt_tokens - u.cached_tokens)
            t["candidates"] += u.candidates_tokens
            t["total"] += u.total_tokens
            t["cached"] += u.cached_tokens
            t["thoughts"] += u.thoughts_tokens

    def _tool(self, event: ev.ToolCallResponse) -> None:
        stats = self.tools.setdefault(event.name, _ToolStats())
        stats.count += 1
        if event.status == "success":
            stats.success += 1
        else:
            stats.fail += 1
        stats.duration_ms += event.duration_ms
        if event.call_id in self._asked:
            stats.decisions["reject" if event.status == "cancelled" else "accept"] += 1
        if event.diff is not None:
            # Counted from the diff the tool already made (linear in its size), as Gemini CLI counts its patch;
            # ndiff here compared changed lines character by character and never ended on a large rewrite.
            diff = event.diff
            if diff.unified:
                added, removed = linediff.stat(diff.unified)
            else:
                old, new = (diff.old_text or "").splitlines(), diff.new_text.splitlines()
                added, removed = linediff.changed_counts(old, new) if old != new else (0, 0)
            self.lines_added += added
            self.lines_removed += removed

    @property
    def tool_calls(self) -> int:
        return sum(t.count for t in self.tools.values())

    def to_json(self) -> dict[str, Any]:
        """The ``stats`` object of ``--output-format json``."""
        by_name = {
            name: {
                "count": t.count,
                "success": t.success,
                "fail": t.fail,
                "durationMs": round(t.duration_ms),
                "decisions": dict(t.decisions),
            }
            for name, t in self.tools.items()
        }
        totals = dict.fromkeys(DECISIONS, 0)
        for t in self.tools.values():
            for k, v in t.decisions.items():
                totals[k] += v
        return {
            "models": {name: m.to_json() for name, m in self.models.items()},
            "tools": {
                "totalCalls": self.tool_calls,
                "totalSuccess": sum(t.success for t in self.tools.values()),
                "totalFail": sum(t.fail for t in self.tools.values()),
                "totalDurationMs": round(sum(t.duration_ms for t in self.tools.values())),
                "totalDecisions": totals,
                "byName": by_name,
            },
            "files": {"totalLinesAdded": self.lines_added, "totalLinesRemoved": self.lines_removed},
        }

    def stream_stats(self, duration_ms: float) -> dict[str, Any]:
        """The ``stats`` of a stream-json ``result`` event."""
        models = {
            name: {
                "total_tokens": t["total"],
                "input_tokens": t["prompt"],
                "output_tokens": t["candidates"],
                "cached": t["cached"],
                "input": t["input"],
            }
            for name, t in ((name, m.all_tokens) for name, m in self.models.items())
        }
        out: dict[str, Any] = {
            key: sum(m[key] for m in models.values())
            for key in ("total_tokens", "input_tokens", "output_tokens", "cached", "input")
        }
        out.update(duration_ms=round(duration_ms), tool_calls=self.tool_calls, models=models)
        return out


def json_output(
    session_id: str | None,
    response: str | None,
    stats: dict[str, Any] | None,
    error: dict[str, Any] | None = None,
    warnings: list[str] | None = None,
) -> str:
    """The whole ``--output-format json`` document; absent parts are left out, as Gemini CLI does."""
    out: dict[str, Any] = {}
    if session_id:
        out["session_id"] = session_id
    if response is not None:
        out["response"] = response
    if stats is not None:
        out["stats"] = stats
    if error is not None:
        out["error"] = error
    if warnings:
        out["warnings"] = warnings
    return json.dumps(out, indent=2, ensure_ascii=False)


def stream_line(kind: str, **fields: Any) -> str:
    """One stream-json event: ``type`` and ``timestamp`` first, then the event's fields (None left out)."""
    data: dict[str, Any] = {"type": kind, "timestamp": timestamp()}
    data.update({k: v for k, v in fields.items() if v is not None})
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def stream_event(event: ev.AgentEvent) -> str | None:
    """The stream-json line for one of our events, or None for events Gemini CLI does not stream."""
    if isinstance(event, ev.Content):
        return stream_line("message", role="assistant", content=event.text, delta=True)
    if isinstance(event, ev.ToolCallRequest):
        call = event.call
        return stream_line("tool_use", tool_name=call.name, tool_id=call.call_id, parameters=call.args)
    if isinstance(event, ev.ToolCallResponse):
        ok = event.status == "success"
        error = None if ok else {"type": _tool_error_type(event), "message": event.error or event.status}
        # Gemini CLI puts the display text in "output", which for a failed call is the error message itself.
        output = event.display if event.display is not None or ok else event.error
        return stream_line(
            "tool_result", tool_id=event.call_id, status="success" if ok else "error", output=output, error=error
        )
    if isinstance(event, ev.Notice) and event.level in ("warning", "error"):
        return stream_line("error", severity=event.level, message=event.message)
    if isinstance(event, ev.LoopDetected):
        return stream_line("error", severity="warning", message="Loop detected, stopping execution")
    if isinstance(event, ev.MaxSessionTurns):
        return stream_line("error", severity="error", message=f"Maximum session turns ({event.limit}) reached")
    return None


def _tool_error_type(event: ev.ToolCallResponse) -> str:
    """Gemini CLI's ``error.type``: the call's ToolErrorType, or its catch-all when the tool gave none."""
    if event.status == "cancelled":
        return "cancelled"
    return event.error_type or "TOOL_EXECUTION_ERROR"
