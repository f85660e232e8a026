"""Auto-approve switches in the policy (policy/auto_approve.py, tools/policy.py): a kind switched on is allowed,
never in plan mode, never over a user's deny rule, a written shell line still asked, and refused when untrusted."""

from __future__ import annotations

from typing import Any

import pytest

from agent_lsp.policy.auto_approve import parse_kinds
from agent_lsp.policy.rules import USER_TIER, PolicyRule
from agent_lsp.tools.policy import Policy


class FakeTool:
    def __init__(self, name: str, kind: str, server: str | None = None) -> None:
        self.name, self.kind, self.server, self.trusted_server = name, kind, server, False


def decide(policy: Policy, name: str, kind: str, args: dict[str, Any] | None = None, server: str | None = None) -> str:
    return policy.decide(FakeTool(name, kind, server), args or {})[0]  # type: ignore[arg-type]


def test_each_kind_allows_its_tools_only() -> None:
    policy = Policy()
    assert decide(policy, "replace", "edit") == "ask"
    assert policy.set_auto_approve("session", parse_kinds(["edit"])) is None
    assert decide(policy, "replace", "edit") == "allow"
    assert decide(policy, "run_shell_command", "execute", {"command": "ls"}) == "ask"
    assert decide(policy, "web_fetch", "fetch") == "ask"
    assert decide(policy, "mcp_srv_tool", "other", server="srv") == "ask"
    policy.set_auto_approve("workspace", parse_kinds(["shell", "web", "mcp"]))
    assert decide(policy, "run_shell_command", "execute", {"command": "ls"}) == "allow"
    assert decide(policy, "run_shell_command", "execute", {"command": "ls > out.txt"}) == "ask"
    assert decide(policy, "web_fetch", "fetch") == "allow"
    assert decide(policy, "mcp_srv_tool", "other", server="srv") == "allow"
    policy.set_auto_approve("session", frozenset())
    assert decide(policy, "replace", "edit") == "ask"
    assert policy.auto_approved() == {"session": frozenset(), "workspace": {"shell", "web", "mcp"}}


def test_plan_mode_and_deny_rules_still_hold() -> None:
    deny = PolicyRule("run_shell_command", "deny", USER_TIER + 0.5, command_prefixes=("rm",))
    policy = Policy(rules=[deny])
    policy.set_auto_approve("session", parse_kinds(["edit", "shell"]))
    assert decide(policy, "run_shell_command", "execute", {"command": "rm -rf x"}) == "deny"
    policy.set_mode("plan")
    assert decide(policy, "replace", "edit", {"file_path": "/x/a.py"}) == "deny"


def test_untrusted_folder_refuses() -> None:
    policy = Policy(trusted=False)
    assert "not trusted" in (policy.set_auto_approve("session", parse_kinds(["read"])) or "")
    assert policy.auto_approved() == {}
    with pytest.raises(ValueError, match="unknown auto-approve kind 'disk'"):
        parse_kinds(["disk"])
