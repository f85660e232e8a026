"""One policy rule, how it matches a call, and the tiers that order rules from different sources."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

PolicyDecision = Literal["allow", "deny", "ask_user"]
DECISIONS: tuple[PolicyDecision, ...] = ("allow", "deny", "ask_user")

# Tiers: a rule's effective priority is tier + priority/1000, so any admin rule outranks any user rule, and so on.
DEFAULT_TIER = 1
EXTENSION_TIER = 2
WORKSPACE_TIER = 3
USER_TIER = 4
ADMIN_TIER = 5
TIER_NAMES = {DEFAULT_TIER: "default", EXTENSION_TIER: "extension", WORKSPACE_TIER: "workspace", USER_TIER: "user"}
TIER_NAMES[ADMIN_TIER] = "admin"

# Settings-derived rules sit inside the user tier at fixed fractions (the same bands Gemini CLI uses).
MCP_EXCLUDED_PRIORITY = USER_TIER + 0.9
EXCLUDE_TOOLS_PRIORITY = USER_TIER + 0.4
ALLOWED_TOOLS_PRIORITY = USER_TIER + 0.3
CORE_TOOLS_PRIORITY = USER_TIER + 0.25
TRUSTED_MCP_SERVER_PRIORITY = USER_TIER + 0.2
ALLOWED_MCP_SERVER_PRIORITY = USER_TIER + 0.1
# "Allow always" answers live in the workspace tier: above the defaults, below anything a user wrote.
ALWAYS_ALLOW_PRIORITY = WORKSPACE_TIER + 0.95

# Gemini CLI spells approval modes in camelCase in policy files; both spellings are accepted.
MODE_ALIASES = {"default": "default", "autoEdit": "auto_edit", "auto_edit": "auto_edit", "yolo": "yolo", "plan": "plan"}
MCP_PREFIX = "mcp_"


def tier_priority(tier: int, priority: int) -> float:
    return tier + priority / 1000


@dataclass(frozen=True)
class PolicyRule:
    """A rule. Empty fields match anything; a rule with several tool names is stored once per name."""

    tool_name: str
    decision: PolicyDecision
    priority: float = 0.0
    mcp_name: str | None = None
    args_pattern: re.Pattern[str] | None = None
    command_prefixes: tuple[str, ...] = ()  # shell only: each command of a chain is checked on its own
    command_regex: re.Pattern[str] | None = None
    modes: tuple[str, ...] = ()
    interactive: bool | None = None
    allow_redirection: bool = False
    deny_message: str | None = None
    source: str = ""
    name: str | None = None
    kinds: tuple[str, ...] = field(default=())  # built-in defaults and auto-approve switches: tools by kind

    @property
    def narrows_command(self) -> bool:
        return bool(self.command_prefixes) or self.command_regex is not None


def stable_args(args: dict[str, Any]) -> str:
    """The call's arguments as compact JSON with sorted keys; each top-level pair is wrapped in NUL bytes,
    so an ``argsPattern`` can anchor on a whole top-level property (the same string Gemini CLI matches)."""

    def dump(value: Any) -> str:
        if isinstance(value, dict):
            return "{" + ",".join(json.dumps(str(k)) + ":" + dump(v) for k, v in sorted(value.items())) + "}"
        if isinstance(value, list | tuple):
            return "[" + ",".join(dump(v) for v in value) + "]"
        return json.dumps(value, ensure_ascii=False)

    pairs = ("\0" + json.dumps(str(k)) + ":" + dump(v) + "\0" for k, v in sorted(args.items()))
    return "{" + ",".join(pairs) + "}"


def prefix_matches(command: str, prefix: str) -> bool:
    """``git status`` matches ``git status`` and ``git status -s``, never ``git statusx``."""
    return command == prefix or (command.startswith(prefix) and command[len(prefix)] in " \t\"'")


def server_of_pattern(pattern: str) -> str | None:
    """The server an MCP wildcard names: ``server__*`` (Gemini CLI's older form) or ``mcp_server_*``."""
    if pattern.endswith("__*"):
        return pattern[:-3]
    if pattern.startswith(MCP_PREFIX) and pattern.endswith("_*") and len(pattern) > len(MCP_PREFIX) + 2:
        return pattern[len(MCP_PREFIX) : -2]
    return None


def name_matches(
    pattern: str, tool_name: str, server: str | None, server_tool: str | None = None, mcp_name: str | None = None
) -> bool:
    """Whether a rule's ``toolName`` covers a tool, as Gemini CLI matches: ``*``, ``mcp_*`` (any MCP tool), a
    server wildcard (``mcp_server_*``, or the older ``server__*``), or the name itself. An MCP tool's name is
    ``mcp_<server>_<tool>``; a rule may also name it ``server__tool``, or by the server's own name for it when
    the rule's ``mcpName`` names the server."""
    if pattern == "*":
        return True
    if pattern == f"{MCP_PREFIX}*":
        return server is not None
    wildcard_server = server_of_pattern(pattern)
    if wildcard_server is not None:
        return server is not None and (wildcard_server == server or wildcard_server == "*")
    if pattern == tool_name:
        return True
    if server is not None:
        original = server_tool or tool_name
        if mcp_name is not None and pattern == original:
            return True
        return pattern in (f"{server}__{original}", f"{MCP_PREFIX}{server}_{original}")
    return False
