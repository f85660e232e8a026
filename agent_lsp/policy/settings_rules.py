"""settings.json's tools.core / tools.allowed / tools.exclude and mcp.allowed / mcp.excluded as policy rules."""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_lsp.policy import rules as r
from agent_lsp.policy.rules import PolicyDecision, PolicyRule
from agent_lsp.vocabulary import at_least_as_permissive

SHELL_TOOL = "run_shell_command"
SHELL_ALIASES = ("run_shell_command", "ShellTool", "run_shell")
_LEGACY = re.compile(r"^\s*([\w.\-]+)\s*\((.*)\)\s*$", re.S)
NON_PLAN = at_least_as_permissive("default")  # what settings allow, plan mode still does not


def parse_entry(entry: str) -> tuple[str, str | None]:
    m = _LEGACY.match(entry)
    name, arg = (m.group(1), m.group(2).strip()) if m else (entry.strip(), None)
    return (SHELL_TOOL if name in SHELL_ALIASES else name), arg


def _map(
    entries: Sequence[str],
    decision: PolicyDecision,
    priority: float,
    source: str,
    modes: tuple[str, ...] = (),
    narrowing_deny: bool = False,
) -> list[PolicyRule]:
    out: list[PolicyRule] = []
    narrowed: set[str] = set()
    for entry in entries:
        name, arg = parse_entry(entry)
        if name == SHELL_TOOL and arg:
            narrowed.add(name)
            out.append(PolicyRule(name, decision, priority, command_prefixes=(arg,), modes=modes, source=source))
        else:
            # Arguments only ever narrowed the shell; for other tools the entry names the whole tool.
            out.append(PolicyRule(name, decision, priority, modes=modes, source=source))
    if narrowing_deny:
        # "run_shell_command(git status)" allows that command and, as in Gemini CLI, no other shell command.
        for name in narrowed:
            out.append(PolicyRule(name, "deny", priority - 0.01, modes=modes, source=f"{source} (narrowing)"))
    return out


def settings_rules(
    *,
    core: Sequence[str] | None = None,
    allowed: Sequence[str] = (),
    exclude: Sequence[str] = (),
    mcp_allowed: Sequence[str] | None = None,
    mcp_excluded: Sequence[str] = (),
    trust_servers: bool = True,
) -> list[PolicyRule]:
    out: list[PolicyRule] = []
    for server in mcp_excluded:
        out.append(
            PolicyRule(f"{r.MCP_PREFIX}{server}_*", "deny", r.MCP_EXCLUDED_PRIORITY, source="Settings (mcp.excluded)")
        )
    # An excluded "run_shell_command(rm)" blocks that command in any chain; a bare name blocks the tool.
    out += _map(exclude, "deny", r.EXCLUDE_TOOLS_PRIORITY, "Settings (tools.exclude)")
    out += _map(allowed, "allow", r.ALLOWED_TOOLS_PRIORITY, "Settings (tools.allowed)", narrowing_deny=True)
    if core is not None:
        out += _map(core, "allow", r.CORE_TOOLS_PRIORITY, "Settings (tools.core)", modes=NON_PLAN)
        out.append(
            PolicyRule("*", "deny", r.CORE_TOOLS_PRIORITY - 0.01, modes=NON_PLAN, source="Settings (tools.core)")
        )
    if trust_servers:
        out.append(
            PolicyRule(
                "@trusted-server",
                "allow",
                r.TRUSTED_MCP_SERVER_PRIORITY,
                modes=NON_PLAN,
                source="Settings (mcpServers.trust)",
            )
        )
    for server in mcp_allowed or ():
        out.append(
            PolicyRule(
                f"{r.MCP_PREFIX}{server}_*",
                "allow",
                r.ALLOWED_MCP_SERVER_PRIORITY,
                modes=NON_PLAN,
                source="Settings (mcp.allowed)",
            )
        )
    return out
