"""The ``hooks`` settings: definitions per event, checked one by one so a bad entry is a notice, not a crash."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from agent_lsp.core.ports import HOOK_EVENTS
from agent_lsp.fields import Fields

DEFAULT_TIMEOUT_MS = 60_000
# Keys older Gemini CLI versions kept inside ``hooks`` itself; today they live under ``hooksConfig``.
_CONFIG_KEYS = {"enabled", "disabled", "notifications"}
TOOL_EVENTS = ("BeforeTool", "AfterTool")
# The types of the values a hook definition holds (checked by agent_lsp.fields, never coerced).
_Command = Annotated[str, Field(pattern=r"\S")]
_Timeout = Annotated[int | float, Field(gt=0)]


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
    """Every runnable hook, in settings order, and a problem line for each entry or value that was left out (each
    names its place, ``hooks.<event>[i].hooks[j]``, the key and the reason; never a value, which may be a secret)."""
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
            if not isinstance(group, dict):
                problems.append(f"{where} must be an object with a 'hooks' list; ignored.")
                continue
            fields = Fields(group, where, quote_keys=True)
            hooks = fields.require("hooks", list, "must be a list of hooks; the definition was ignored.")
            matcher = fields.take("matcher", str, "must be a string; the definition was ignored.")
            problems.extend(fields.problems)
            if hooks is None or fields.problems:
                continue
            sequential = group.get("sequential") is True
            for j, hook in enumerate(hooks):
                parsed = _parse_one(event, hook, f"{where}.hooks[{j}]", matcher or "", sequential, problems)
                if parsed is not None and parsed.name not in off and parsed.command not in off:
                    out.append(parsed)
    return out, problems


def _parse_one(
    event: str, hook: Any, where: str, matcher: str, sequential: bool, problems: list[str]
) -> HookCommand | None:
    if not isinstance(hook, dict):
        problems.append(f"{where} must be an object; ignored.")
        return None
    fields = Fields(hook, where, quote_keys=True)
    fields.take("type", Literal["command"], 'is not supported (only "command"); ignored.')
    command = fields.require("command", _Command, "is required (a command line); ignored.")
    left_out = bool(fields.problems)
    timeout = fields.take(
        "timeout", _Timeout, f"must be a positive number of milliseconds; using {DEFAULT_TIMEOUT_MS}."
    )
    name = fields.take("name", str, "must be a string; the command names the hook.")
    env = fields.take("env", dict, "must be an object of variable names and values; ignored.")
    problems.extend(fields.problems)
    if left_out:
        return None
    return HookCommand(
        event=event,
        command=command,
        name=name or command,
        timeout_ms=int(timeout or DEFAULT_TIMEOUT_MS),
        matcher=matcher,
        sequential=sequential,
        env=tuple((str(k), str(v)) for k, v in (env or {}).items()),
    )
