"""The Hooks port: picks the hooks of an event, runs them, and merges their answers as Gemini CLI does."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from agent_lsp.core.ports import HookOutcome
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
                change = _specific(run.output).get("tool_input")
                if event == "BeforeTool" and isinstance(change, dict):
                    full = {**full, "tool_input": {**full.get("tool_input", {}), **change}}
        else:
            runs = list(await asyncio.gather(*(run_hook(h, full, cwd=self.cwd, env=self.env) for h in chosen)))
        return merge(event, runs)


def merge(event: str, runs: Sequence[HookRun]) -> HookOutcome:
    """Any block wins and its reasons are joined; contexts are joined; rewrites are applied in order."""
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
        out = run.output
        if out is None:
            if run.exit_code == EXIT_BLOCK:
                blocked = True
                reasons.append(f"Blocked by {label}.")
            continue
        if out.get("continue") is False:
            stop = True
            if isinstance(out.get("stopReason"), str):
                stop_reasons.append(out["stopReason"])
        if out.get("decision") in ("deny", "block"):
            blocked = True
        if isinstance(out.get("reason"), str) and out["reason"]:
            reasons.append(out["reason"])
        if isinstance(out.get("systemMessage"), str) and out["systemMessage"]:
            message = out["systemMessage"]
            notices.append(("warning" if message.startswith("Warning: ") else "info", message))
        specific = _specific(out)
        if isinstance(specific.get("additionalContext"), str) and specific["additionalContext"]:
            contexts.append(specific["additionalContext"])
        if isinstance(specific.get("tool_input"), dict):
            tool_input = {**(tool_input or {}), **specific["tool_input"]}
        if isinstance(specific.get("llm_request"), dict):
            llm_request = {**(llm_request or {}), **specific["llm_request"]}
        if isinstance(specific.get("llm_response"), dict):
            llm_response = specific["llm_response"]  # the last hook's answer replaces the others'
        if specific.get("clearContext") is True:
            clear = True
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


def _specific(output: Mapping[str, Any] | None) -> dict[str, Any]:
    value = output.get("hookSpecificOutput") if output else None
    return value if isinstance(value, dict) else {}


def _dedupe(hooks: list[HookCommand]) -> list[HookCommand]:
    """The same command configured in two layers runs once (Gemini CLI deduplicates by command)."""
    seen: set[str] = set()
    out: list[HookCommand] = []
    for h in hooks:
        if h.command not in seen:
            seen.add(h.command)
            out.append(h)
    return out
