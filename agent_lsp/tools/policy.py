"""Approval policy: the approval mode plus the policy engine decide allow, ask or deny for each call."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from agent_lsp.core.ports import Decision
from agent_lsp.core.tool import SHELL_TOOL, Tool
from agent_lsp.events import ConfirmationDetails
from agent_lsp.policy.auto_approve import AutoKind, Scope, auto_rules
from agent_lsp.policy.engine import PolicyEngine, ToolFacts
from agent_lsp.policy.rules import ALWAYS_ALLOW_PRIORITY, MCP_PREFIX, PolicyRule
from agent_lsp.vocabulary import ApprovalMode, at_least_as_permissive, mode_refusal


def _facts(tool: Tool | None, name: str) -> ToolFacts:
    if tool is None:
        return ToolFacts(name)
    server_tool = getattr(tool, "server_tool_name", None)  # MCP tools only
    return ToolFacts(tool.name, tool.kind, tool.server, bool(tool.trusted_server), server_tool)


@dataclass
class Policy:
    """Per session: the approval mode and the policy engine (built-in defaults, settings and policy files).
    The core sees it as ``core.ports.ToolPolicy``.

    ``trusted`` False forces the default mode and ignores session-wide auto-approval; ``interactive`` False
    (headless, nobody to ask) turns "ask" defaults into deny, as Gemini CLI does.
    """

    mode: ApprovalMode = "default"
    core: Sequence[str] | None = None  # tools.core: allowlist of tools (None: all)
    allowed: Sequence[str] = ()  # tools.allowed: skip confirmation
    exclude: Sequence[str] = ()  # tools.exclude: never run
    trusted: bool = True
    interactive: bool = True
    rules: Sequence[PolicyRule] = ()  # from policy files and command-line flags
    mcp_allowed: Sequence[str] | None = None
    mcp_excluded: Sequence[str] = ()
    # Gemini CLI's switches for people who must forbid these (security.disableYoloMode, security.disableAlwaysAllow,
    # both by admin.secureModeEnabled): yolo is refused from every source; "allow always" is neither offered nor
    # remembered, and saved always-allow rules (priority fraction .950) are left out.
    disable_yolo: bool = False
    disable_always_allow: bool = False
    engine: PolicyEngine = field(init=False)
    _auto: dict[Scope, frozenset[AutoKind]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        if (not self.trusted and self.mode != "default") or (self.disable_yolo and self.mode == "yolo"):
            self.mode = "default"
        if self.disable_always_allow:
            self.rules = [r for r in self.rules if not is_always_allow(r)]
        from agent_lsp.policy.defaults import default_rules
        from agent_lsp.policy.settings_rules import settings_rules

        self.engine = PolicyEngine(
            [
                *default_rules(),
                *settings_rules(
                    core=self.core,
                    allowed=self.allowed,
                    exclude=self.exclude,
                    mcp_allowed=self.mcp_allowed,
                    mcp_excluded=self.mcp_excluded,
                    trust_servers=self.trusted,
                ),
                *self.rules,
            ],
            interactive=self.interactive,
        )

    def set_mode(self, mode: ApprovalMode) -> str | None:
        """Change mode; returns a reason when the change was refused (untrusted folder, yolo disabled)."""
        if mode == "yolo" and self.disable_yolo:
            return "yolo mode is disabled by settings (security.disableYoloMode or admin.secureModeEnabled)"
        refused = mode_refusal(mode, trusted=self.trusted)
        if refused is None:
            self.mode = mode
        return refused

    def is_enabled(self, name: str, tool: Tool | None = None) -> bool:
        """Whether the model is told about the tool at all: not when the policy denies it whatever the args."""
        return not self.engine.excluded(_facts(tool, name), self.mode)

    def decide(self, tool: Tool, args: dict[str, Any]) -> tuple[Decision, str]:
        """The decision and, for deny, the reason the model is told (Gemini CLI's words)."""
        result = self.engine.check(_facts(tool, tool.name), args, self.mode)
        if result.decision == "deny":
            extra = f" {result.rule.deny_message}" if result.rule is not None and result.rule.deny_message else ""
            return "deny", f"Tool execution denied by policy.{extra}"
        return ("allow" if result.decision == "allow" else "ask"), ""

    def remember(self, tool: Tool, details: ConfirmationDetails, scope: Literal["tool", "server"] = "tool") -> None:
        """ "Allow always" for this session: shell by root commands, MCP per tool or server, else the tool."""
        if self.disable_always_allow:
            return
        if tool.name == SHELL_TOOL:
            # Only the programs the user saw; a line that runs none (``x=1``) must not open the whole shell.
            if details.type != "exec" or not details.root_commands:
                return
            rule = PolicyRule(SHELL_TOOL, "allow", ALWAYS_ALLOW_PRIORITY, command_prefixes=tuple(details.root_commands))
        elif details.type == "mcp" and scope == "server" and tool.server:
            rule = PolicyRule(f"{MCP_PREFIX}{tool.server}_*", "allow", ALWAYS_ALLOW_PRIORITY)
        else:
            rule = PolicyRule(tool.name, "allow", ALWAYS_ALLOW_PRIORITY, mcp_name=tool.server)
        # The answer holds in this mode and any more permissive one, never in a stricter one (plan).
        modes = at_least_as_permissive(self.mode)
        self.engine.add(replace(rule, modes=modes, source="Session (allow always)"))

    def rule_for(self, tool: Tool, details: ConfirmationDetails) -> list[str]:
        """The rules "allow always and save" persists, as tools.allowed-style entries (saved as policy rules);
        empty when none can be: a shell line that runs no program the user saw must not open the whole shell."""
        if tool.name == SHELL_TOOL:
            if details.type != "exec" or not details.root_commands:
                return []
            return [f"{SHELL_TOOL}({r})" for r in details.root_commands]
        if tool.server and not tool.name.startswith(MCP_PREFIX):
            # ``mcp_<server>_<tool>`` (what MCP tools are named): a saved rule must never match a built-in.
            return [f"{MCP_PREFIX}{tool.server}_{tool.name}"]
        return [tool.name]

    def auto_approved(self) -> dict[Scope, frozenset[AutoKind]]:
        """The kinds switched on, by scope (an editor's auto-approve controls)."""
        return dict(self._auto)

    def set_auto_approve(self, scope: Scope, kinds: frozenset[AutoKind]) -> str | None:
        """Allow ``kinds`` without asking, for ``scope``; the reason when refused (an untrusted folder)."""
        refused = auto_approve_refusal(trusted=self.trusted)
        if refused is None and self.disable_always_allow:
            # The switches are standing "allow always" answers: refused with them.
            refused = "auto-approve is off: settings disable 'allow always' (security.disableAlwaysAllow)"
        if refused is not None:
            return refused
        self._auto[scope] = kinds
        self.engine.replace_source(f"Auto-approve ({scope})", auto_rules(kinds, f"Auto-approve ({scope})"))
        return None


def is_always_allow(rule: PolicyRule) -> bool:
    """An "allow always" answer, kept or saved (Gemini CLI marks them by the priority fraction .950)."""
    return rule.decision == "allow" and round((rule.priority % 1) * 1000) == 950


def auto_approve_refusal(*, trusted: bool) -> str | None:
    """Why auto-approve switches cannot be used in this folder, or None."""
    if trusted:
        return None
    return "this folder is not trusted, so tools cannot be auto-approved; trust the folder to use these switches"
