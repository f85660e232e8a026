"""The Hooks port: picks the hooks of an event, runs them, and merges their answers as Gemini CLI does."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from agent_lsp.core.ports import HookOutcome
from agent_lsp.hooks.answer import read_answer
from agent_lsp.hooks.config import HookCommand
from agent_lsp.hooks.runner import EXIT_BLOCK, HookRun, run_hook

Level = Literal["info", "warning", "error"]


class HookSystem:
    """Runs configured hooks for one session. ``session_id`` and ``transcript`` are read when a hook fires."""

    def __init__(
        self,
        hooks: Sequence[HookCommand],
        *,
        cwd: Path,
        env: Mapping[str, str],
        session_id: Callable[[], str],
        transcript: Callable[[], str] = lambda: "",
    ) -> None:
        self.hooks = list(hooks)
        self.cwd = cwd
        self.env = dict(env)
        self.session_id = session_id
        self.transcript = transcript

    def has(self, event: str, target: str | None = None) -> bool:
        return any(h.event == event and h.matches(target) for h in self.hooks)

    async def fire(self, event: str, payload: Mapping[str, Any], target: str | None = None) -> HookOutcome:
        chosen = _dedupe([h for h in self.hooks if h.event == event and h.matches(target)])
        if not chosen:
            return HookOutcome()
        full = {
            "session_id": self.session_id(),
            "transcript_path": self.transcript(),
            "cwd": str(self.cwd),
            "hook_event_name": event,
            "timestamp": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
            **payload,
        }
        runs: list[HookRun] = []
        if any(h.sequential for h in chosen):
            for hook in chosen:
                run = await run_hook(hook, full, cwd=self.cwd, env=self.env)
                runs.append(run)
                # One after another: a BeforeTool hook sees the input the previous one rewrote.
                change = read_answer(run.output, "").tool_input if run.output is not None else None
                if event == "BeforeTool" and change is not None:
                    full = {**full, "tool_input": {**full.get("tool_input", {}), **change}}
        else:
            runs = list(await asyncio.gather(*(run_hook(h, full, cwd=self.cwd, env=self.env) for h in chosen)))
        return merge(event, runs)


def merge(event: str, runs: Sequence[HookRun]) -> HookOutcome:
    """Any block wins and its reasons are joined; contexts are joined; rewrites are applied in order. A value of
    the wrong type in an answer is a warning naming the hook and the key; the rest of the answer counts."""
    blocked = stop = clear = False
    reasons: list[str] = []
    stop_reasons: list[str] = []
    contexts: list[str] = []
    notices: list[tuple[Level, str]] = []
    tool_input: dict[str, Any] | None = None
    llm_request: dict[str, Any] | None = None
    llm_response: dict[str, Any] | None = None
    for run in runs:
        label = f"{event} hook '{run.hook.name}'"
        if run.error is not None:
            notices.append(("warning", f"{label} failed: {run.error}; carrying on without it."))
            continue
        if run.output is None:
            if run.exit_code == EXIT_BLOCK:
                blocked = True
                reasons.append(f"Blocked by {label}.")
            continue
        answer = read_answer(run.output, label)
        notices.extend(("warning", problem) for problem in answer.problems)
        stop = stop or answer.stop
        if answer.stop and answer.stop_reason:
            stop_reasons.append(answer.stop_reason)
        blocked = blocked or answer.blocked
        if answer.reason:
            reasons.append(answer.reason)
        if message := answer.system_message:
            notices.append(("warning" if message.startswith("Warning: ") else "info", message))
        if answer.additional_context:
            contexts.append(answer.additional_context)
        if answer.tool_input is not None:
            tool_input = {**(tool_input or {}), **answer.tool_input}
        if answer.llm_request is not None:
            llm_request = {**(llm_request or {}), **answer.llm_request}
        if answer.llm_response is not None:
            llm_response = answer.llm_response  # the last hook's answer replaces the others'
        clear = clear or answer.clear_context
    return HookOutcome(
        blocked=blocked,
        reason="\n".join(reasons),
        stop=stop,
        stop_reason="\n".join(stop_reasons) or "\n".join(reasons),
        additional_context="\n".join(contexts),
        tool_input=tool_input,
        llm_request=llm_request,
        llm_response=llm_response,
        clear_context=clear,
        notices=tuple(notices),
    )


def _dedupe(hooks: list[HookCommand]) -> list[HookCommand]:
    """The same command configured in two layers runs once (Gemini CLI deduplicates by command)."""
    seen: set[str] = set()
    out: list[HookCommand] = []
    for h in hooks:
        if h.command not in seen:
            seen.add(h.command)
            out.append(h)
    return out
