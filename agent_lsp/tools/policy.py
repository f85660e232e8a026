"""Approval policy: approval mode plus settings rules decide allow, ask or deny for each call."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_lsp.events import ConfirmationDetails
from agent_lsp.tools.base import Tool

ApprovalMode = Literal["default", "auto_edit", "yolo", "plan"]
APPROVAL_MODES: tuple[ApprovalMode, ...] = ("default", "auto_edit", "yolo", "plan")
Decision = Literal["allow", "ask", "deny"]
SHELL_TOOL = "run_shell_command"
_RULE = re.compile(r"^\s*([\w.\-]+)\s*(?:\((.*)\))?\s*$", re.S)


@dataclass(frozen=True)
class Rule:
    """``tool`` or ``tool(arg prefix)``; for the shell the prefix matches each chained command."""

    tool: str
    prefix: str | None = None

    @classmethod
    def parse(cls, text: str) -> Rule:
        m = _RULE.match(text)
        if not m:
            return cls(text.strip())
        return cls(m.group(1), m.group(2).strip() if m.group(2) is not None else None)


def _commands(args: dict[str, Any]) -> list[str]:
    from agent_lsp.tools.shell_parse import split_commands

    return [c.strip() for c in split_commands(str(args.get("command", ""))) if c.strip()]


def _prefix_match(command: str, prefix: str) -> bool:
    return command == prefix or command.startswith(prefix + " ")


@dataclass
class Policy:
    """Per session. ``trusted`` False forces the default mode and ignores session-wide auto-approval."""

    mode: ApprovalMode = "default"
    core: Sequence[str] | None = None  # tools.core: allowlist of tools (None: all)
    allowed: Sequence[str] = ()  # tools.allowed: skip confirmation
    exclude: Sequence[str] = ()  # tools.exclude: never run
    trusted: bool = True
    _session_tools: set[str] = field(default_factory=set)
    _session_roots: set[str] = field(default_factory=set)
    _session_servers: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        if not self.trusted and self.mode != "default":
            self.mode = "default"

    def set_mode(self, mode: ApprovalMode) -> str | None:
        """Change mode; returns a reason when the change was refused (untrusted folder)."""
        if not self.trusted and mode in ("auto_edit", "yolo"):
            return "this folder is not trusted, so tools cannot be auto-approved; trust it to use " + mode
        self.mode = mode
        return None

    def is_enabled(self, name: str) -> bool:
        """Whether the model is told about the tool at all."""
        for r in map(Rule.parse, self.exclude):
            if r.tool == name and r.prefix is None:
                return False
        if self.core is not None:
            return any(Rule.parse(c).tool == name for c in self.core)
        return True

    def decide(self, tool: Tool, args: dict[str, Any]) -> tuple[Decision, str]:
        """The decision and, for deny, the reason the model is told."""
        name = tool.name
        if not self.is_enabled(name):
            return "deny", f"Tool '{name}' is disabled by settings (tools.core / tools.exclude)."
        if name == SHELL_TOOL:
            commands = _commands(args)
            for r in map(Rule.parse, self.exclude):
                if r.tool == SHELL_TOOL and r.prefix and any(_prefix_match(c, r.prefix) for c in commands):
                    return "deny", f"Command '{r.prefix}' is blocked by settings (tools.exclude)."
            core_prefixes = [p.prefix for p in map(Rule.parse, self.core or ()) if p.tool == SHELL_TOOL and p.prefix]
            if core_prefixes and not all(any(_prefix_match(c, p) for p in core_prefixes) for c in commands):
                return "deny", "Command is not in the allowed list of shell commands (tools.core)."
        if self.mode == "plan":
            if tool.kind in ("read", "search", "think"):
                return "allow", ""
            if tool.kind == "fetch":
                return "ask", ""
            return "deny", f"Tool '{name}' is not available in plan mode: only read-only tools may run while planning."
        if self.mode == "yolo":
            return "allow", ""
        if tool.kind in ("read", "search", "think"):
            return "allow", ""
        if self._allowed_by_rules(tool, args):
            return "allow", ""
        if self.mode == "auto_edit" and tool.kind in ("edit", "delete", "move"):
            return "allow", ""
        return "ask", ""

    def _allowed_by_rules(self, tool: Tool, args: dict[str, Any]) -> bool:
        name = tool.name
        if name in self._session_tools:
            return True
        if tool.server and (tool.server in self._session_servers or (tool.trusted_server and self.trusted)):
            return True
        rules = [Rule.parse(a) for a in self.allowed]
        if name == SHELL_TOOL:
            from agent_lsp.tools.shell_parse import root_command

            commands = _commands(args)
            if commands and all(root_command(c) in self._session_roots for c in commands):
                return True
            prefixes = [r.prefix for r in rules if r.tool == SHELL_TOOL]
            if None in prefixes:
                return True
            return bool(commands) and all(any(_prefix_match(c, p) for p in prefixes if p) for c in commands)
        return any(r.tool == name and r.prefix is None for r in rules)

    def remember(self, tool: Tool, details: ConfirmationDetails, scope: Literal["tool", "server"] = "tool") -> None:
        """ "Allow always" for this session: shell by root commands, MCP per tool or server, else the tool."""
        if tool.name == SHELL_TOOL and details.type == "exec" and details.root_commands:
            self._session_roots.update(details.root_commands)
        elif details.type == "mcp" and scope == "server" and tool.server:
            self._session_servers.add(tool.server)
        else:
            self._session_tools.add(tool.name)

    def rule_for(self, tool: Tool, details: ConfirmationDetails) -> list[str]:
        """The tools.allowed entries that "allow always and save" writes to settings."""
        if tool.name == SHELL_TOOL and details.type == "exec" and details.root_commands:
            return [f"{SHELL_TOOL}({r})" for r in details.root_commands]
        return [tool.name]
