"""Approval policy: modes, tools.core / tools.allowed / tools.exclude rules, session memory, trust.

The expectations follow Gemini CLI 0.61's policy engine (auto_edit allows web_fetch; a narrowed
tools.allowed shell entry denies other shell commands)."""

from __future__ import annotations

from typing import Any

from agent_lsp.events import ConfirmationDetails, ToolKind
from agent_lsp.tools.base import Tool, ToolInvocation
from agent_lsp.tools.policy import Policy


class Fake(Tool):
    def __init__(self, name: str, kind: ToolKind, server: str | None = None, trusted: bool = False) -> None:
        self.name, self.display_name, self.description, self.kind = name, name, name, kind
        self.parameters = {"type": "object"}
        self.server, self.trusted_server = server, trusted

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        raise NotImplementedError


READ, EDIT, SHELL = Fake("read_file", "read"), Fake("replace", "edit"), Fake("run_shell_command", "execute")
FETCH, MCP = Fake("web_fetch", "fetch"), Fake("add", "other", server="calc")


def sh(cmd: str) -> dict[str, Any]:
    return {"command": cmd}


def test_modes() -> None:
    table = {
        "default": {"read": "allow", "edit": "ask", "shell": "ask", "fetch": "ask", "mcp": "ask"},
        "auto_edit": {"read": "allow", "edit": "allow", "shell": "ask", "fetch": "allow", "mcp": "ask"},
        "yolo": {"read": "allow", "edit": "allow", "shell": "allow", "fetch": "allow", "mcp": "allow"},
        "plan": {"read": "allow", "edit": "deny", "shell": "deny", "fetch": "ask", "mcp": "deny"},
    }
    tools = {"read": READ, "edit": EDIT, "shell": SHELL, "fetch": FETCH, "mcp": MCP}
    for mode, expected in table.items():
        policy = Policy(mode=mode)  # type: ignore[arg-type]
        got = {k: policy.decide(t, sh("ls"))[0] for k, t in tools.items()}
        assert got == expected, mode


def test_allowed_rules_with_shell_prefixes() -> None:
    policy = Policy(allowed=["run_shell_command(git status)", "run_shell_command(ls)", "replace"])
    assert policy.decide(SHELL, sh("git status"))[0] == "allow"
    assert policy.decide(SHELL, sh("git status --short && ls -la"))[0] == "allow"
    # Every chained command must match; as in Gemini CLI, a narrowed shell allowance denies other commands.
    assert policy.decide(SHELL, sh("git status; rm -rf /"))[0] == "deny"
    assert policy.decide(SHELL, sh("git statusx"))[0] == "deny"
    assert Policy(allowed=["run_shell_command(git status)"]).decide(SHELL, sh("git status > out.txt"))[0] == "ask"
    assert policy.decide(EDIT, {})[0] == "allow"


def test_exclude_and_core() -> None:
    policy = Policy(mode="yolo", exclude=["run_shell_command(rm)", "web_fetch"])
    assert policy.decide(SHELL, sh("echo hi && rm -rf x"))[0] == "deny"
    assert policy.decide(SHELL, sh("echo hi"))[0] == "allow"
    assert not policy.is_enabled("web_fetch") and policy.decide(FETCH, {})[0] == "deny"
    core = Policy(mode="yolo", core=["read_file", "run_shell_command(git)"])
    assert core.is_enabled("read_file") and not core.is_enabled("replace")
    assert core.decide(SHELL, sh("git log"))[0] == "allow"
    decision, reason = core.decide(SHELL, sh("curl example.com"))
    assert decision == "deny" and reason == "Tool execution denied by policy."


def test_remember_for_the_session() -> None:
    policy = Policy()
    details = ConfirmationDetails("exec", "run", command="npm test && git diff", root_commands=("npm", "git"))
    assert policy.decide(SHELL, sh("npm test"))[0] == "ask"
    policy.remember(SHELL, details)
    assert policy.decide(SHELL, sh("npm run lint && git status"))[0] == "allow"
    assert policy.decide(SHELL, sh("curl x"))[0] == "ask"
    assert policy.rule_for(SHELL, details) == ["run_shell_command(npm)", "run_shell_command(git)"]
    other = Fake("add", "other", server="calc")
    other2 = Fake("mul", "other", server="calc")
    mcp_details = ConfirmationDetails("mcp", "add", server="calc", tool="add")
    policy.remember(other, mcp_details, "tool")
    assert policy.decide(other, {})[0] == "allow" and policy.decide(other2, {})[0] == "ask"
    policy.remember(other, mcp_details, "server")
    assert policy.decide(other2, {})[0] == "allow"
    # "Allow always" on a shell line that runs no program allows nothing more.
    policy.remember(SHELL, ConfirmationDetails("exec", "run", command="x=1", root_commands=()))
    assert policy.decide(SHELL, sh("curl x"))[0] == "ask"
    # A non-shell exec confirmation never widens what the shell may run.
    policy2 = Policy()
    policy2.remember(Fake("discovered", "other"), ConfirmationDetails("exec", "x", root_commands=("rm",)))
    assert policy2.decide(SHELL, sh("rm x"))[0] == "ask"


def test_untrusted_folder_forces_default_and_ignores_server_trust() -> None:
    policy = Policy(mode="yolo", trusted=False)
    assert policy.mode == "default"
    assert policy.set_mode("yolo") is not None and policy.mode == "default"
    assert policy.set_mode("plan") is None and policy.mode == "plan"
    trusted_server_tool = Fake("add", "other", server="calc", trusted=True)
    assert Policy(trusted=False).decide(trusted_server_tool, {})[0] == "ask"
    assert Policy(trusted=True).decide(trusted_server_tool, {})[0] == "allow"


def test_a_substitution_hidden_by_a_line_continuation_is_never_allowed() -> None:
    # Issue 11: bash joins `$\` + newline + `(` into `$(`; the allow rule for `git status` must not cover it.
    command = "git status $\\\n(touch MARKER)"
    for mode in ("default", "auto_edit", "yolo"):
        policy = Policy(mode=mode, allowed=["run_shell_command(git status)"])  # type: ignore[arg-type]
        # Not allowed: a narrowed tools.allowed entry denies every other shell line (Gemini CLI 0.61).
        assert policy.decide(SHELL, sh(command))[0] == "deny", mode


def test_what_does_not_parse_is_asked_in_every_mode_even_when_the_shell_is_allowed() -> None:
    for mode in ("default", "auto_edit", "yolo"):
        policy = Policy(mode=mode, allowed=["run_shell_command", "run_shell_command(echo)"])  # type: ignore[arg-type]
        assert policy.decide(SHELL, sh("echo 'unbalanced"))[0] == "ask", mode
        assert policy.decide(SHELL, sh("echo fine"))[0] == "allow", mode
    assert Policy(mode="plan").decide(SHELL, sh("echo 'unbalanced"))[0] == "deny"


def test_commands_hidden_in_compound_statements_need_their_own_rule() -> None:
    policy = Policy(allowed=["run_shell_command(echo)", "run_shell_command(f)", "run_shell_command(true)"])
    for command in (
        "case a in a) rm x;; esac",
        "function f { rm x; }; f",
        "if true; then rm x; fi",
        "echo $(rm x)",
        "echo ok\nrm x",
        "echo ok # \\\nrm x",
        "env rm x",
        "bash -c 'rm x'",
        "x=1; echo hi",  # an assignment alone changes what later commands do (PATH=...)
    ):
        # Never allowed; with a narrowed tools.allowed the rest of the shell is denied (Gemini CLI 0.61).
        assert policy.decide(SHELL, sh(command))[0] == "deny", command
    assert policy.decide(SHELL, sh("echo $((1+2)) && true")) == ("allow", "")
    assert policy.decide(SHELL, sh("ec\\\nho joined")) == ("allow", "")


def test_an_allowed_command_that_writes_a_file_is_asked_in_default_mode() -> None:
    allowed = ["run_shell_command(git status)"]
    assert Policy(allowed=allowed).decide(SHELL, sh("git status > ~/.bashrc"))[0] == "ask"
    assert Policy(allowed=allowed).decide(SHELL, sh("git status 2>/dev/null 2>&1"))[0] == "allow"
    assert Policy(mode="auto_edit", allowed=allowed).decide(SHELL, sh("git status > out"))[0] == "allow"


def test_allow_always_for_the_shell_remembers_programs_as_written() -> None:
    policy = Policy()
    policy.remember(SHELL, ConfirmationDetails("exec", "run", command="git status", root_commands=("git",)))
    assert policy.decide(SHELL, sh("git log && git status"))[0] == "allow"
    assert policy.decide(SHELL, sh("/tmp/evil/git status"))[0] == "ask"  # another program named git
    assert policy.decide(SHELL, sh("GIT_DIR=/x git status"))[0] == "ask"
    assert policy.decide(SHELL, sh("git status; rm x"))[0] == "ask"
    # "Allow always" on a line that runs no program allows nothing more.
    policy.remember(SHELL, ConfirmationDetails("exec", "run", command="x=1", root_commands=()))
    assert policy.decide(SHELL, sh("curl x"))[0] == "ask"


def test_exclude_sees_through_spellings_and_wrappers_and_core_needs_a_parse() -> None:
    policy = Policy(mode="yolo", exclude=["run_shell_command(rm)"])
    for command in ("\\rm x", "/bin/rm x", "'rm' x", "sudo rm x", "bash -c 'rm x'", "find . -exec rm {} +"):
        assert policy.decide(SHELL, sh(command))[0] == "deny", command
    assert policy.decide(SHELL, sh("c=rm; $c x"))[0] == "ask"  # cannot be checked against the exclude list
    assert policy.decide(SHELL, sh("c=rm; sudo $c x"))[0] == "ask"
    assert policy.decide(SHELL, sh("echo rm"))[0] == "allow"
    core = Policy(mode="yolo", core=["run_shell_command(git)"])
    decision, reason = core.decide(SHELL, sh("git log 'unbalanced"))
    assert decision == "deny" and reason == "Tool execution denied by policy."
    assert core.decide(SHELL, sh("git log | less"))[0] == "deny"
