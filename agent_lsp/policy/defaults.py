"""Built-in rules (the default tier): what each approval mode lets a tool of each kind do without asking."""

from __future__ import annotations

import json
import re
from pathlib import Path

from agent_lsp.policy.rules import DEFAULT_TIER, PolicyRule, tier_priority
from agent_lsp.vocabulary import at_least_as_permissive

READ_KINDS = ("read", "search", "think")
WRITE_KINDS = ("edit", "delete", "move", "execute", "fetch")
EDIT_KINDS = ("edit", "delete", "move")
PLAN_DENY = (
    "You are in Plan Mode with access to read-only tools: files cannot be changed and commands cannot run "
    "until the plan is approved."
)

ALREADY_PLANNING = "You are already in Plan Mode."
NOT_PLANNING = "You are not currently in Plan Mode. Use enter_plan_mode first to design a plan."
PLAN_WRITERS = ("write_file", "replace")
PLAN_WRITES = (
    "You are in Plan Mode and cannot modify source code. You may only use write_file or replace to save plans "
    "as <name>.md files in the plans folder."
)


def _p(priority: int) -> float:
    return tier_priority(DEFAULT_TIER, priority)


def default_rules() -> list[PolicyRule]:
    """The same bands as Gemini CLI's built-in policies, keyed by tool kind so MCP and built-ins share them.

    Tools of kind "other" (MCP, discovered, save_memory) match nothing here: they get the engine's default,
    ask when someone can answer, deny when nobody can.
    """
    src = "Default"
    return [
        PolicyRule("*", "allow", _p(998), modes=("yolo",), source=src, allow_redirection=True),
        PolicyRule("*", "allow", _p(50), kinds=READ_KINDS, source=src),
        PolicyRule("*", "ask_user", _p(50), kinds=("fetch",), modes=("plan",), interactive=True, source=src),
        PolicyRule("*", "deny", _p(40), modes=("plan",), deny_message=PLAN_DENY, source=src),
        PolicyRule("*", "allow", _p(15), kinds=(*EDIT_KINDS, "fetch"), modes=("auto_edit",), source=src),
        PolicyRule("*", "ask_user", _p(10), kinds=WRITE_KINDS, interactive=True, source=src),
        PolicyRule("*", "deny", _p(10), kinds=WRITE_KINDS, interactive=False, source=src),
        *_named_rules(src),
    ]


def _named_rules(src: str) -> list[PolicyRule]:
    """Gemini CLI 0.61's rules for the tools it names: plan mode's switch, subagents, skills."""
    not_plan = at_least_as_permissive("default")
    subagents_in_plan = re.compile(r'"agent_name":\s*"(codebase_investigator|cli_help)"')
    return [
        # The model asks to plan: the user confirms; nobody to ask, it just switches. Never from yolo in an
        # editor, and not again once planning.
        PolicyRule("enter_plan_mode", "ask_user", _p(50), interactive=True, source=src),
        PolicyRule("enter_plan_mode", "allow", _p(50), interactive=False, source=src),
        PolicyRule("enter_plan_mode", "deny", _p(70), modes=("plan",), deny_message=ALREADY_PLANNING, source=src),
        PolicyRule("enter_plan_mode", "deny", _p(999), modes=("yolo",), interactive=True, source=src),
        # Subagents run their tools under this same policy, so starting one is not asked; in plan mode only the
        # read-only ones may start.
        PolicyRule("invoke_agent", "allow", _p(50), modes=not_plan, source=src),
        PolicyRule("invoke_agent", "allow", _p(50), modes=("plan",), args_pattern=subagents_in_plan, source=src),
        PolicyRule("activate_skill", "ask_user", _p(50), modes=("plan",), interactive=True, source=src),
        # Leaving plan mode: the user approves the plan; nobody to ask, it is approved. Only from plan mode.
        PolicyRule("exit_plan_mode", "ask_user", _p(70), modes=("plan",), interactive=True, source=src),
        PolicyRule("exit_plan_mode", "allow", _p(70), modes=("plan",), interactive=False, source=src),
        # Outside plan mode it is not offered at all, yolo included (as 0.61 declares it).
        PolicyRule("exit_plan_mode", "deny", _p(999), modes=not_plan, deny_message=NOT_PLANNING, source=src),
    ]


def plan_file_rules(plans: Path) -> list[PolicyRule]:
    """Plan mode may write one thing: ``<name>.md`` plans in ``plans`` (by absolute path), as Gemini CLI 0.61."""
    folder = re.escape(json.dumps(str(plans))[1:-1])
    pattern = re.compile(r'\x00"file_path":"' + folder + r'/[\w-]+\.md"\x00')
    src = "Default"
    rules = [PolicyRule(t, "allow", _p(70), modes=("plan",), args_pattern=pattern, source=src) for t in PLAN_WRITERS]
    rules += [
        PolicyRule(t, "deny", _p(65), modes=("plan",), deny_message=PLAN_WRITES, source=src) for t in PLAN_WRITERS
    ]
    return rules
