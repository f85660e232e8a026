"""The policy engine on its own: TOML rules, tiers and priorities, MCP wildcards, shell chains, broken files."""

from __future__ import annotations

from pathlib import Path

from agent_lsp.policy.engine import PolicyEngine, ToolFacts
from agent_lsp.policy.loader import load_policies
from agent_lsp.policy.rules import ADMIN_TIER, USER_TIER, WORKSPACE_TIER, stable_args

SHELL = ToolFacts("run_shell_command", "execute")
READ = ToolFacts("read_file", "read")
MCP_ADD = ToolFacts("add", "other", server="calc")


def engine(tmp_path: Path, *files: tuple[str, int, str], interactive: bool = True) -> tuple[PolicyEngine, list[str]]:
    sources = []
    for i, (text, tier, name) in enumerate(files):
        folder = tmp_path / f"tier{i}"
        folder.mkdir()
        (folder / name).write_text(text)
        sources.append((folder, tier))
    loaded = load_policies(sources)
    return PolicyEngine(loaded.rules, interactive=interactive), [str(e) for e in loaded.errors]


def decide(e: PolicyEngine, tool: ToolFacts, mode: str = "default", **args: object) -> str:
    return e.check(tool, dict(args), mode).decision


def test_higher_tier_wins_whatever_the_priority(tmp_path: Path) -> None:
    e, errors = engine(
        tmp_path,
        ('[[rule]]\ntoolName = "read_file"\ndecision = "deny"\npriority = 999\n', WORKSPACE_TIER, "w.toml"),
        ('[[rule]]\ntoolName = "read_file"\ndecision = "allow"\npriority = 0\n', USER_TIER, "u.toml"),
        (
            '[[rule]]\ntoolName = "read_file"\ndecision = "ask_user"\npriority = 0\nmodes = ["yolo"]\n',
            ADMIN_TIER,
            "a.toml",
        ),
    )
    assert errors == []
    assert decide(e, READ) == "allow"
    assert decide(e, READ, "yolo") == "ask_user"  # the admin rule applies in yolo only


def test_mcp_wildcards_and_mcp_name(tmp_path: Path) -> None:
    e, _ = engine(
        tmp_path,
        (
            '[[rule]]\ntoolName = "calc__*"\ndecision = "allow"\npriority = 10\n\n'
            '[[rule]]\ntoolName = "mcp_calc_*"\ndecision = "deny"\npriority = 5\n\n'
            '[[rule]]\nmcpName = "other"\ntoolName = "add"\ndecision = "deny"\npriority = 50\n',
            USER_TIER,
            "m.toml",
        ),
    )
    assert decide(e, MCP_ADD) == "allow"
    assert decide(e, ToolFacts("add", "other", server="other")) == "deny"
    assert decide(e, ToolFacts("calc__add", "other")) == "ask_user"  # not an MCP tool: no server


def test_command_prefix_and_regex_hold_for_every_command_in_a_chain(tmp_path: Path) -> None:
    e, _ = engine(
        tmp_path,
        (
            '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = ["git status", "ls"]\ndecision = "allow"\n'
            'priority = 10\n\n[[rule]]\ntoolName = "run_shell_command"\ncommandRegex = "rm\\\\s+-rf"\n'
            'decision = "deny"\npriority = 20\n',
            USER_TIER,
            "s.toml",
        ),
    )
    assert decide(e, SHELL, command="git status -s && ls -la") == "allow"
    assert decide(e, SHELL, command="git status && curl x") == "ask_user"
    assert decide(e, SHELL, command="ls; rm -rf /") == "deny"
    assert decide(e, SHELL, command="ls > out.txt") == "ask_user"  # redirection is seen by a person
    assert decide(e, SHELL, "yolo", command="curl x") == "allow"


def test_args_pattern_sees_sorted_top_level_pairs(tmp_path: Path) -> None:
    assert stable_args({"b": 1, "a": {"y": [1], "x": "s"}}) == '{\0"a":{"x":"s","y":[1]}\0,\0"b":1\0}'
    e, _ = engine(
        tmp_path,
        ('[[rule]]\ntoolName = "read_file"\nargsPattern = \'"file_path":"[^"]*\\.env"\'\ndecision = "deny"\n'
         "priority = 1\n", USER_TIER, "a.toml"),
    )  # fmt: skip
    assert decide(e, READ, file_path="app/.env") == "deny"
    assert decide(e, READ, file_path="app/env.py") == "ask_user"


def test_interactive_rules_and_the_headless_default(tmp_path: Path) -> None:
    text = '[[rule]]\ntoolName = "read_file"\ndecision = "allow"\npriority = 1\ninteractive = false\n'
    e, _ = engine(tmp_path, (text, USER_TIER, "i.toml"), interactive=False)
    assert decide(e, READ) == "allow"
    assert decide(e, SHELL, command="ls") == "deny"  # nobody to ask: the default is deny
    assert e.excluded(SHELL, "default") and not e.excluded(READ, "default")


def test_broken_rules_never_widen(tmp_path: Path) -> None:
    e, errors = engine(
        tmp_path,
        (
            '[[rule]]\ntoolName = "read_file"\ndecision = "allow"\npriority = 1\nargsPattern = "("\n\n'
            '[[rule]]\ntoolName = "run_shell_command"\ndecision = "deny"\npriority = 1\ncommandRegex = "("\n\n'
            '[[rule]]\ntoolName = "glob"\ndecision = "sometimes"\npriority = 1\n\n'
            '[[rule]]\ntoolName = "replace"\ncommandPrefix = "x"\ndecision = "allow"\npriority = 1\n',
            USER_TIER,
            "b.toml",
        ),
    )
    assert len(errors) == 4 and all("b.toml, rule #" in err for err in errors)
    assert "rule #3: decision must be one of allow, deny, ask_user (got 'sometimes')" in errors[2]
    assert decide(e, READ) == "ask_user"  # the broken allow is dropped
    assert decide(e, SHELL, command="ls") == "deny"  # the broken deny covers the whole tool
    assert decide(e, ToolFacts("glob", "search")) == "ask_user"
    assert decide(e, ToolFacts("replace", "edit")) == "ask_user"


def test_mcp_tools_are_matched_by_the_names_gemini_cli_gives_them(tmp_path: Path) -> None:
    """One policy file for both agents: MCP tools are named ``mcp_<server>_<tool>`` and rules match them so."""
    e, errors = engine(
        tmp_path,
        (
            '[[rule]]\ntoolName = "mcp_everything_echo"\ndecision = "allow"\npriority = 10\n\n'
            '[[rule]]\nmcpName = "everything"\ntoolName = "get-sum"\ndecision = "deny"\npriority = 10\n\n'
            '[[rule]]\ntoolName = "mcp_time_*"\ndecision = "allow"\npriority = 10\n\n'
            '[[rule]]\ntoolName = "get-env"\ndecision = "deny"\npriority = 10\n',
            USER_TIER,
            "shared.toml",
        ),
    )
    assert errors == []

    def mcp(server: str, tool: str) -> ToolFacts:
        return ToolFacts(f"mcp_{server}_{tool}", "other", server=server, server_tool=tool)

    assert decide(e, mcp("everything", "echo")) == "allow"
    assert decide(e, mcp("everything", "get-sum")) == "deny"  # mcpName + the server's own name for the tool
    assert decide(e, mcp("time", "get_current_time")) == "allow"
    assert decide(e, mcp("timer", "get_current_time")) == "ask_user"  # a server wildcard names its server only
    # A bare name without mcpName means a built-in, as in Gemini CLI: the MCP tool of that name is not covered.
    assert decide(e, mcp("everything", "get-env")) == "ask_user"
