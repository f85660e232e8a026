"""The ``hooks`` settings: definitions per event, checked one by one so a bad entry is a notice, not a crash."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_lsp.core.ports import HOOK_EVENTS

DEFAULT_TIMEOUT_MS = 60_000
# Keys older Gemini CLI versions kept inside ``hooks`` itself; today they live under ``hooksConfig``.
_CONFIG_KEYS = {"enabled", "disabled", "notifications"}
TOOL_EVENTS = ("BeforeTool", "AfterTool")


@dataclass(frozen=True)
class HookCommand:
    event: str
    command: str
    name: str
    timeout_ms: int
    matcher: str = ""
    sequential: bool = False
    env: tuple[tuple[str, str], ...] = ()

    def matches(self, target: str | None) -> bool:
        """Tool events match a regex on the tool name (an invalid regex: the exact name); others the exact
        trigger. No matcher, ``""`` and ``"*"`` match everything."""
        matcher = self.matcher.strip()
        if target is None or matcher in ("", "*"):
            return True
        if self.event in TOOL_EVENTS:
            try:
                return re.search(matcher, target) is not None
            except re.error:
                return matcher == target
        return matcher == target


def parse_hooks(raw: Mapping[str, Any], disabled: Sequence[str] = ()) -> tuple[list[HookCommand], list[str]]:
    """Every runnable hook, in settings order, and a problem line for each entry that was left out."""
    out: list[HookCommand] = []
    problems: list[str] = []
    off = set(disabled)
    for event, groups in raw.items():
        if event in _CONFIG_KEYS:
            continue
        if event not in HOOK_EVENTS:
            problems.append(f"Hooks for '{event}' are ignored: agent-lsp runs {', '.join(HOOK_EVENTS)}.")
            continue
        if not isinstance(groups, list):
            problems.append(f"hooks.{event} must be a list of hook definitions; ignored.")
            continue
        for i, group in enumerate(groups):
            where = f"hooks.{event}[{i}]"
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                problems.append(f"{where} needs a 'hooks' list; ignored.")
                continue
            matcher = group.get("matcher", "")
            if not isinstance(matcher, str):
                problems.append(f"{where}.matcher must be a string; the definition was ignored.")
                continue
            sequential = group.get("sequential") is True
            for j, hook in enumerate(group["hooks"]):
                parsed = _parse_one(event, hook, f"{where}.hooks[{j}]", matcher, sequential, problems)
                if parsed is not None and parsed.name not in off and parsed.command not in off:
                    out.append(parsed)
    return out, problems


def _parse_one(
    event: str, hook: Any, where: str, matcher: str, sequential: bool, problems: list[str]
) -> HookCommand | None:
    if not isinstance(hook, dict):
        problems.append(f"{where} must be an object; ignored.")
        return None
    kind = hook.get("type", "command")
    if kind != "command":
        problems.append(f'{where}: type {kind!r} is not supported (only "command"); ignored.')
        return None
    command = hook.get("command")
    if not isinstance(command, str) or not command.strip():
        problems.append(f"{where}: 'command' is required; ignored.")
        return None
    timeout = hook.get("timeout", DEFAULT_TIMEOUT_MS)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        problems.append(f"{where}: 'timeout' must be a positive number of milliseconds; using 60000.")
        timeout = DEFAULT_TIMEOUT_MS
    name = hook.get("name")
    raw_env = hook.get("env")
    env: dict[str, Any] = raw_env if isinstance(raw_env, dict) else {}
    return HookCommand(
        event=event,
        command=command,
        name=name if isinstance(name, str) and name else command,
        timeout_ms=int(timeout),
        matcher=matcher,
        sequential=sequential,
        env=tuple((str(k), str(v)) for k, v in env.items()),
    )
