"""Reads policy TOML files: ``[[rule]]`` tables become PolicyRules in their file's tier; problems become
errors naming the file, the rule and the reason. A broken file or rule never widens what is allowed."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from agent_lsp.fields import Fields
from agent_lsp.policy.rules import (
    ADMIN_TIER,
    MODE_ALIASES,
    TIER_NAMES,
    USER_TIER,
    WORKSPACE_TIER,
    PolicyDecision,
    PolicyRule,
    tier_priority,
)

SHELL_TOOL = "run_shell_command"
# The types a [[rule]]'s fields must have (checked by agent_lsp.fields; a field of another type is reported).
Priority = Annotated[int, Field(ge=0, le=999)]
_Name = Annotated[str, Field(min_length=1)]
ToolNames = _Name | Annotated[list[_Name], Field(min_length=1)]
Prefixes = Annotated[str, Field(pattern=r"\S")] | list[Annotated[str, Field(pattern=r"\S")]]
_KNOWN_KEYS = {
    "toolName", "mcpName", "argsPattern", "commandPrefix", "commandRegex", "decision", "priority", "modes",
    "interactive", "allowRedirection", "allow_redirection", "denyMessage", "deny_message", "name", "subagent",
    "toolAnnotations",
}  # fmt: skip


@dataclass(frozen=True)
class PolicyFileError:
    path: Path
    tier: int
    message: str
    rule_index: int | None = None

    def __str__(self) -> str:
        where = f", rule #{self.rule_index + 1}" if self.rule_index is not None else ""
        return f"[{TIER_NAMES.get(self.tier, 'user').upper()}] Policy file error in {self.path}{where}: {self.message}"


@dataclass
class LoadedPolicies:
    rules: list[PolicyRule] = field(default_factory=list)
    errors: list[PolicyFileError] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


def system_policies_dir(env: Mapping[str, str]) -> Path:
    """Next to the system settings file (``/etc/gemini-cli`` on Linux), as Gemini CLI keeps it."""
    from agent_lsp.config.loader import system_settings_path

    return system_settings_path(env).parent / "policies"


def user_policies_dir() -> Path:
    from agent_lsp.config.paths import gemini_dir

    return gemini_dir() / "policies"


def policy_sources(
    cwd: Path, *, trusted: bool, policy_paths: Sequence[Path] = (), env: Mapping[str, str] = os.environ
) -> list[tuple[Path, int]]:
    """Where policies come from, with their tier: admin (system), user (or ``--policy`` paths instead),
    and the workspace's ``.gemini/policies`` only in a trusted folder."""
    out = [(system_policies_dir(env), ADMIN_TIER)]
    out += [(p, USER_TIER) for p in policy_paths] if policy_paths else [(user_policies_dir(), USER_TIER)]
    if trusted:
        out.append((cwd / ".gemini" / "policies", WORKSPACE_TIER))
    return out


def load_policies(sources: Iterable[tuple[Path, int]]) -> LoadedPolicies:
    loaded = LoadedPolicies()
    for path, tier in sources:
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.suffix == ".toml" and p.is_file())
        elif path.is_file():
            files = [path]
        elif path.exists() or (tier == USER_TIER and path != user_policies_dir()):
            # A --policy path that is missing is a mistake worth saying; absent default folders are normal.
            loaded.errors.append(PolicyFileError(path, tier, "no such policy file or folder"))
            continue
        else:
            continue
        for file in files:
            loaded.files.append(file)
            _load_file(file, tier, loaded)
    return loaded


def _fail_closed(file: Path, tier: int) -> PolicyRule:
    # We cannot know what the file meant to forbid, so nothing may run unasked until it is fixed.
    return PolicyRule("*", "ask_user", tier_priority(tier, 999), source=f"{TIER_NAMES[tier]}: {file.name} (unreadable)")


def _load_file(file: Path, tier: int, loaded: LoadedPolicies) -> None:
    import tomllib  # imported here: only a policy file on disk needs the parser, not every start-up

    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        loaded.errors.append(
            PolicyFileError(file, tier, f"{exc}; every tool call asks for approval until this file is fixed")
        )
        loaded.rules.append(_fail_closed(file, tier))
        return
    raw_rules = data.get("rule", [])
    if not isinstance(raw_rules, list):
        loaded.errors.append(PolicyFileError(file, tier, "'rule' must be an array of tables ([[rule]])"))
        loaded.rules.append(_fail_closed(file, tier))
        return
    for index, raw in enumerate(raw_rules):
        rules, problem = parse_rule(raw, tier, f"{TIER_NAMES[tier].capitalize()}: {file.name}")
        if problem:
            loaded.errors.append(PolicyFileError(file, tier, problem, index))
        loaded.rules.extend(rules)


def parse_rule(raw: Any, tier: int, source: str) -> tuple[list[PolicyRule], str | None]:
    """The rules one ``[[rule]]`` table makes, and what was wrong with it. A broken allow rule is dropped; a
    broken deny or ask rule is kept without the part that broke, so it covers more, never less."""
    if not isinstance(raw, dict):
        return [], "a rule must be a table"
    fields = Fields(raw, show_values=True)
    problems = fields.problems
    unknown = sorted(set(raw) - _KNOWN_KEYS)
    if unknown:
        problems.append(f"unknown field(s) {', '.join(unknown)}")
    # A broken decision: the strictest reading that lets a person go on.
    decision: PolicyDecision = (
        fields.take("decision", PolicyDecision, "must be one of allow, deny, ask_user") or "ask_user"
    )
    if "decision" not in raw:
        fields.problem("decision", "must be one of allow, deny, ask_user", None)
    priority = fields.take("priority", Priority, "must be an integer from 0 to 999")
    if priority is None:
        if "priority" not in raw:
            fields.problem("priority", "must be an integer from 0 to 999", None)
        priority = 999 if decision != "allow" else 0
    names = fields.take("toolName", ToolNames, 'is required: a tool name, a list of names, or "*"')
    if names is None and "toolName" not in raw:
        fields.problem("toolName", 'is required: a tool name, a list of names, or "*"')
    name_list = [names] if isinstance(names, str) else names or ["*"]
    modes: list[str] = []
    for m in raw.get("modes") or []:
        if m in MODE_ALIASES:
            modes.append(MODE_ALIASES[m])
        else:
            problems.append(f"unknown mode {m!r} (default, autoEdit, yolo, plan)")
    interactive = fields.take("interactive", bool, "must be true or false")
    prefixes_raw = fields.take("commandPrefix", Prefixes, "must be a string or a list of non-empty strings")
    prefixes = [prefixes_raw] if isinstance(prefixes_raw, str) else prefixes_raw or []
    args_pattern = _compile(raw.get("argsPattern"), "argsPattern", problems)
    command_regex = _compile(raw.get("commandRegex"), "commandRegex", problems)
    narrowing = [k for k in ("argsPattern", "commandPrefix", "commandRegex") if raw.get(k) is not None]
    if len(narrowing) > 1:
        problems.append(f"use only one of argsPattern, commandPrefix, commandRegex (got {', '.join(narrowing)})")
    if (prefixes or raw.get("commandRegex") is not None) and any(n != SHELL_TOOL for n in name_list):
        problems.append('commandPrefix and commandRegex apply only to toolName = "run_shell_command"')
    broken_narrowing = any("argsPattern" in p or "commandRegex" in p or "commandPrefix" in p for p in problems)
    if problems and decision == "allow":
        return [], "; ".join(problems) + " (rule ignored)"
    if broken_narrowing:
        # A deny/ask rule whose narrowing is broken applies to the whole tool.
        args_pattern = command_regex = None
        prefixes = []
    deny_message = raw.get("denyMessage", raw.get("deny_message"))
    mcp_name, rule_name = raw.get("mcpName"), raw.get("name")
    mcp_name = mcp_name if isinstance(mcp_name, str) else None
    rule_name = rule_name if isinstance(rule_name, str) else None
    out = [
        PolicyRule(
            tool_name=name,
            decision=decision,
            priority=tier_priority(tier, priority),
            mcp_name=mcp_name,
            args_pattern=args_pattern,
            command_prefixes=tuple(p.strip() for p in prefixes),
            command_regex=command_regex,
            modes=tuple(modes),
            interactive=interactive,
            allow_redirection=bool(raw.get("allowRedirection", raw.get("allow_redirection", False))),
            deny_message=deny_message if isinstance(deny_message, str) else None,
            source=source,
            name=rule_name,
        )
        for name in name_list
    ]
    return out, ("; ".join(problems) if problems else None)


def _compile(value: Any, key: str, problems: list[str]) -> re.Pattern[str] | None:
    if value is None:
        return None
    if not isinstance(value, str):
        problems.append(f"{key} must be a string")
        return None
    try:
        return re.compile(value)
    except re.error as exc:
        problems.append(f"{key} {value!r} is not a valid regular expression: {exc}")
        return None
