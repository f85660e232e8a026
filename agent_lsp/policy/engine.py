"""PolicyEngine: the highest-priority matching rule decides; shell chains are decided command by command."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from agent_lsp.policy.rules import PolicyDecision, PolicyRule, name_matches, prefix_matches, stable_args
from agent_lsp.vocabulary import auto_approves

SHELL_TOOL = "run_shell_command"
_RANK = {"deny": 0, "ask_user": 1, "allow": 2}
# Output or input redirection outside quotes: an allowed command that writes a file should still be seen.
_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"")
_REDIRECT = re.compile(r"(?<![<>])(?:\d*>>?|<(?![<(]))")


@dataclass(frozen=True)
class ToolFacts:
    """What a rule can look at besides the arguments."""

    name: str
    kind: str = "other"
    server: str | None = None  # the MCP server, for MCP tools
    trusted_server: bool = False
    server_tool: str | None = None  # an MCP tool's name on its server (``name`` is ``mcp_<server>_<tool>``)


@dataclass(frozen=True)
class CheckResult:
    decision: PolicyDecision
    rule: PolicyRule | None = None


@dataclass(frozen=True)
class ShellSplit:
    ok: bool
    commands: tuple[str, ...]
    substitution: bool = False
    normalized: tuple[str, ...] = ()  # per command: ``/bin/rm -rf x`` -> ``rm -rf x`` (deny rules match both)
    writes: bool | None = None  # output redirection to a file; None: the parser cannot tell (a regex decides)
    computed_program: bool = False  # a program name that is itself computed (``$cmd x``): no rule can name it


def split_shell(command: str) -> ShellSplit:
    """The commands of a chain, through the shell parser; a command that does not parse is not ``ok``."""
    import agent_lsp.shellparse as shell_parse

    parse = getattr(shell_parse, "parse_shell", None)
    if parse is not None:  # the tree-sitter parser, when present
        parsed = parse(command)
        texts = tuple(t for t in (str(getattr(c, "text", c)).strip() for c in parsed.commands) if t)
        parts = tuple(getattr(parsed, "parts", ()) or ())
        normalized = tuple(str(getattr(p, "normalized", "") or "").strip() for p in parts)
        writes = getattr(parsed, "writes", None)
        return ShellSplit(
            bool(parsed.ok),
            texts,
            bool(parsed.substitution),
            normalized if len(normalized) == len(texts) else (),
            bool(writes) if writes is not None else None,
            any(not getattr(p, "known_program", True) for p in parts),
        )
    commands = tuple(c.strip() for c in shell_parse.split_commands(command) if c.strip())
    return ShellSplit(bool(commands), commands, shell_parse.find_substitution(command) is not None)


def has_redirection(command: str) -> bool:
    return _REDIRECT.search(_QUOTED.sub("''", command)) is not None


class PolicyEngine:
    """Rules sorted by priority (highest first). ``interactive`` False turns every "ask" default into deny."""

    def __init__(self, rules: Iterable[PolicyRule] = (), *, interactive: bool = True) -> None:
        self.interactive = interactive
        self._rules: list[PolicyRule] = []
        for rule in rules:
            self.add(rule)

    @property
    def rules(self) -> Sequence[PolicyRule]:
        return tuple(self._rules)

    @property
    def default_decision(self) -> PolicyDecision:
        return "ask_user" if self.interactive else "deny"

    def add(self, rule: PolicyRule) -> None:
        self._rules.append(rule)
        self._rules.sort(key=lambda r: -r.priority)  # stable: equal priorities keep their load order

    def replace_source(self, source: str, rules: Iterable[PolicyRule]) -> None:
        """Drop every rule from ``source`` and add ``rules`` (an editor's auto-approve switches, changed)."""
        self._rules = [r for r in self._rules if r.source != source]
        for rule in rules:
            self.add(rule)

    def check(self, tool: ToolFacts, args: dict[str, Any], mode: str) -> CheckResult:
        args_text = stable_args(args) if any(r.args_pattern for r in self._rules) else ""
        command = args.get("command") if tool.name == SHELL_TOOL else None
        if not isinstance(command, str) or not command.strip():
            return self._first(tool, args_text, mode, None) or CheckResult(self._no_match(mode))
        return self._check_shell(tool, args_text, mode, command.strip())

    def _no_match(self, mode: str) -> PolicyDecision:
        return "allow" if mode == "yolo" else self.default_decision

    def _first(
        self, tool: ToolFacts, args_text: str, mode: str, command: str | None, normalized: str = ""
    ) -> CheckResult | None:
        for rule in self._rules:
            if self._matches(rule, tool, args_text, mode, command) or (
                # A deny rule also catches the command spelled another way (``/bin/rm``, ``\rm``).
                normalized
                and rule.decision == "deny"
                and rule.narrows_command
                and self._matches(rule, tool, args_text, mode, normalized)
            ):
                return CheckResult(rule.decision, rule)
        return None

    def _check_shell(self, tool: ToolFacts, args_text: str, mode: str, command: str) -> CheckResult:
        whole = self._first(tool, args_text, mode, command) or CheckResult(self._no_match(mode))
        # A deny aimed at the command line as written (a prefix, a pattern) holds whatever the parse says;
        # a tool-wide deny is weighed per command below, where a rule allowing that command may outrank it.
        if (
            whole.decision == "deny"
            and whole.rule is not None
            and (whole.rule.narrows_command or whole.rule.args_pattern)
        ):
            return whole
        split = split_shell(command)
        if not split.ok or not split.commands:
            # We cannot see what bash would run: nothing runs unasked, in any mode; and what would be denied
            # without the rules that allow particular commands (tools.core, a narrowed tools.allowed) is denied.
            for rule in self._rules:
                if rule.narrows_command or rule.args_pattern is not None:
                    continue
                if self._matches(rule, tool, args_text, mode, command):
                    if rule.decision == "deny":
                        return CheckResult("deny", rule)
                    break
            return CheckResult(self.default_decision, whole.rule)
        # The parse is what bash runs: each command is decided on its own and the strictest answer wins
        # (the raw line only counted above, for deny: ``ec\<newline>ho`` is ``echo`` to bash, not to a prefix).
        result: CheckResult | None = None
        for i, sub in enumerate(split.commands):
            normalized = split.normalized[i] if split.normalized else ""
            part = self._first(tool, args_text, mode, sub, normalized) or CheckResult(self._no_match(mode))
            if part.decision == "deny":
                return part
            if result is None or _RANK[part.decision] < _RANK[result.decision]:
                result = part
        result = result or whole
        if result.decision == "allow" and split.computed_program and self._has_command_denials(tool, mode):
            # A computed program name (``$cmd``) could be one a deny rule names: a person decides.
            return CheckResult("ask_user", None)
        if result.decision == "allow" and not auto_approves(mode):
            allow_redirect = result.rule is not None and result.rule.allow_redirection
            writes = split.writes if split.writes is not None else has_redirection(command)
            if (writes and not allow_redirect) or split.substitution:
                result = CheckResult("ask_user", None)
        return result

    def _has_command_denials(self, tool: ToolFacts, mode: str) -> bool:
        return any(
            r.decision == "deny"
            and r.narrows_command
            and (not r.modes or mode in r.modes)
            and r.tool_name in ("*", tool.name)
            for r in self._rules
        )

    def _matches(self, rule: PolicyRule, tool: ToolFacts, args_text: str, mode: str, command: str | None) -> bool:
        if not self._matches_tool(rule, tool, mode):
            return False
        if rule.args_pattern is not None and not rule.args_pattern.search(args_text):
            return False
        if rule.narrows_command:
            if command is None:
                return False
            if rule.command_prefixes and not any(prefix_matches(command, p) for p in rule.command_prefixes):
                return False
            if rule.command_regex is not None and not rule.command_regex.match(command):
                return False
        return True

    def _matches_tool(self, rule: PolicyRule, tool: ToolFacts, mode: str) -> bool:
        """The rule's tool-level conditions (mode, interactivity, server, kind, name), whatever the arguments."""
        if rule.modes and mode not in rule.modes:
            return False
        if rule.interactive is not None and rule.interactive != self.interactive:
            return False
        if rule.mcp_name is not None and (tool.server is None or rule.mcp_name not in ("*", tool.server)):
            return False
        if rule.kinds and tool.kind not in rule.kinds:
            return False
        if rule.tool_name == "@trusted-server":
            return bool(tool.server and tool.trusted_server)
        return name_matches(rule.tool_name, tool.name, tool.server, tool.server_tool, rule.mcp_name)

    def excluded(self, tool: ToolFacts, mode: str) -> bool:
        """Whether the tool is denied whatever its arguments: then the model is not told about it at all.

        Runs for every declared tool on every model request, so it checks the tool-level conditions only; the
        old way built a copy of each rule without its argument conditions, a dataclass per rule per tool."""
        for rule in self._rules:
            if not self._matches_tool(rule, tool, mode):
                continue
            if rule.args_pattern is not None or rule.narrows_command:
                if rule.decision != "deny":
                    return False
                continue
            return rule.decision == "deny"
        return mode != "yolo" and self.default_decision == "deny"
