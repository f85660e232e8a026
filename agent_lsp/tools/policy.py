"""Approval policy: approval mode plus settings rules decide allow, ask or deny for each call."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from agent_lsp.events import ConfirmationDetails
from agent_lsp.tools.base import Tool

if TYPE_CHECKING:
    from agent_lsp.tools.shell_parse import ShellParse

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


def _shell(args: dict[str, Any]) -> ShellParse:
    from agent_lsp.tools.shell_parse import parse_shell  # loads the bash grammar on first use, not at start-up

    return parse_shell(str(args.get("command", "")))


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
        shell = _shell(args) if name == SHELL_TOOL else None
        if shell is not None:
            denied = self._shell_denied(shell)
            if denied:
                return "deny", denied
        if self.mode == "plan":
            if tool.kind in ("read", "search", "think"):
                return "allow", ""
            if tool.kind == "fetch":
                return "ask", ""
            return "deny", f"Tool '{name}' is not available in plan mode: only read-only tools may run while planning."
        if shell is not None and not shell.ok:
            return "ask", ""  # what bash would run is unclear: a person decides, in every mode (yolo too)
        if shell is not None and self._has_shell_excludes() and not all(p.known_program for p in shell.parts):
            return "ask", ""  # a computed program name (``$x``, ``r*``) cannot be checked against tools.exclude
        if self.mode == "yolo":
            return "allow", ""
        if tool.kind in ("read", "search", "think"):
            return "allow", ""
        if self._allowed_by_rules(tool, args, shell):
            return "allow", ""
        if self.mode == "auto_edit" and tool.kind in ("edit", "delete", "move"):
            return "allow", ""
        return "ask", ""

    def _has_shell_excludes(self) -> bool:
        return any(r.tool == SHELL_TOOL and r.prefix for r in map(Rule.parse, self.exclude))

    def _shell_denied(self, shell: ShellParse) -> str | None:
        """tools.exclude and tools.core for the shell: every command bash would run is checked, wrapped
        (``sudo rm``) and nested (``bash -c 'rm'``) ones too; exclude also matches ``/bin/rm`` and ``\\rm``."""
        for r in map(Rule.parse, self.exclude):
            if r.tool == SHELL_TOOL and r.prefix:
                prefix = r.prefix
                if any(_prefix_match(p.text, prefix) or _prefix_match(p.normalized, prefix) for p in shell.parts):
                    return f"Command '{prefix}' is blocked by settings (tools.exclude)."
        core = [p.prefix for p in map(Rule.parse, self.core or ()) if p.tool == SHELL_TOOL and p.prefix]
        if core:
            if not shell.ok:
                return "Command could not be checked against the allowed shell commands (tools.core): " + (
                    shell.problem or "it does not parse"
                )
            if not all(any(_prefix_match(p.text, c) for c in core) for p in shell.parts):
                return "Command is not in the allowed list of shell commands (tools.core)."
        return None

    def _allowed_by_rules(self, tool: Tool, args: dict[str, Any], shell: ShellParse | None = None) -> bool:
        name = tool.name
        if shell is not None:
            return self._shell_allowed(shell)
        if name in self._session_tools:
            return True
        if tool.server and (tool.server in self._session_servers or (tool.trusted_server and self.trusted)):
            return True
        return any(r.tool == name and r.prefix is None for r in map(Rule.parse, self.allowed))

    def _shell_allowed(self, shell: ShellParse) -> bool:
        """Every command bash would run matches an allow rule (or a root allowed this session), the line
        parses, has no substitution, and, in default mode, writes no file by redirection."""
        if not shell.ok or shell.substitution or not shell.parts:
            return False
        rules = [Rule.parse(a) for a in self.allowed]
        if any(r.tool == SHELL_TOOL and r.prefix is None for r in rules):
            return True
        prefixes = [r.prefix for r in rules if r.tool == SHELL_TOOL and r.prefix] + sorted(self._session_roots)
        if self.mode == "default" and shell.writes:
            return False  # ``git status > ~/.bashrc`` is not what allowing ``git status`` meant
        return all(any(_prefix_match(p.text, prefix) for prefix in prefixes) for p in shell.parts)

    def remember(self, tool: Tool, details: ConfirmationDetails, scope: Literal["tool", "server"] = "tool") -> None:
        """ "Allow always" for this session: shell by root commands, MCP per tool or server, else the tool."""
        if tool.name == SHELL_TOOL:
            # Only the programs the user saw; a command with none (``x=1``) must not open the whole shell.
            if details.type == "exec":
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
