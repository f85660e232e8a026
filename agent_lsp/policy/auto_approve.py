"""Auto-approval by kind (read, edit, shell, MCP, web): the allow rules an editor's switches add to a policy."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from agent_lsp.policy.defaults import EDIT_KINDS, READ_KINDS
from agent_lsp.policy.rules import ALWAYS_ALLOW_PRIORITY, MCP_PREFIX, PolicyRule

AutoKind = Literal["read", "edit", "shell", "mcp", "web"]
Scope = Literal["session", "workspace"]
AUTO_KINDS: tuple[AutoKind, ...] = ("read", "edit", "shell", "mcp", "web")
SCOPES: tuple[Scope, ...] = ("session", "workspace")
# Never in plan mode: planning stays read-only whatever is switched on (its deny sits in the default tier).
AUTO_MODES = ("default", "auto_edit", "yolo")
SHELL_TOOL = "run_shell_command"


def parse_kinds(values: Iterable[object]) -> frozenset[AutoKind]:
    """The known kinds among ``values``; raises ValueError naming the first unknown one."""
    kinds: set[AutoKind] = set()
    for value in values:
        kind = next((k for k in AUTO_KINDS if k == value), None)
        if kind is None:
            raise ValueError(f"unknown auto-approve kind {value!r}; expected one of {', '.join(AUTO_KINDS)}")
        kinds.add(kind)
    return frozenset(kinds)


def auto_rules(kinds: Iterable[AutoKind], source: str) -> list[PolicyRule]:
    """Allow rules for ``kinds``, in the band "allow always" answers use: above the defaults, below every rule a
    user, an administrator or a workspace's policy files wrote with a higher priority, so a deny there still wins.
    A shell line is still decided command by command, and one that writes a file, substitutes a command or does
    not parse is still asked (policy/engine.py): the switch allows what a "run it" rule would, no more."""
    rule = {
        "read": [PolicyRule("*", "allow", kinds=READ_KINDS)],
        "edit": [PolicyRule("*", "allow", kinds=EDIT_KINDS)],
        "shell": [PolicyRule(SHELL_TOOL, "allow")],
        "mcp": [PolicyRule(f"{MCP_PREFIX}*", "allow")],
        "web": [PolicyRule("*", "allow", kinds=("fetch",)), PolicyRule("google_web_search", "allow")],
    }
    return [
        PolicyRule(
            r.tool_name,
            "allow",
            ALWAYS_ALLOW_PRIORITY,
            kinds=r.kinds,
            modes=AUTO_MODES,
            source=source,
        )
        for kind in AUTO_KINDS
        if kind in set(kinds)
        for r in rule[kind]
    ]
