"""The shell-safety table of docs/tools.md, row by row, through the real scheduler, policy and shell tool.

Each row is a command line run in default, auto_edit and yolo mode with the same settings. The outcome is
what the scheduler did: "refuse" (validation refused it, nothing ran), "deny" (a settings rule blocked it),
"ask" (the user was asked; the test user declines, so nothing runs) or "allow" (it ran without asking).
Hidden commands touch MARKER or remove `victim`; after each run the workspace shows whether bash ran them,
so a row proves both the decision and its effect on a real bash.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent_lsp import events as ev
from agent_lsp.core.approval import Approval
from agent_lsp.core.call_results import AnswerOptions
from agent_lsp.core.ports import ConfirmationResult
from agent_lsp.core.scheduler import Scheduler
from agent_lsp.core.tool import ToolCallRequestInfo
from agent_lsp.core.tool_calls import CallOutcome
from agent_lsp.policy.rules import USER_TIER, PolicyRule
from agent_lsp.shellparse.walk import MAX_COMMAND_BYTES
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.policy import Policy
from agent_lsp.tools.registry import ToolRegistry
from agent_lsp.tools.shell import ShellTool
from agent_lsp.workspace.filesystem import LocalFileSystem
from agent_lsp.workspace.roots import Workspace

DOCS = Path(__file__).resolve().parents[2] / "docs" / "tools.md"
MODES = ("default", "auto_edit", "yolo")
# Wrappers and interpreters are allowed on purpose: allowing them must not allow what they run. They are user
# policy rules (commandPrefix), so a command outside them asks; a narrowed tools.allowed entry would deny it
# instead, as Gemini CLI 0.61 does, which would hide what the parse lets through.
ALLOWED = [
    PolicyRule("run_shell_command", "allow", USER_TIER + 0.1, command_prefixes=(p,), source="test")
    for p in ("echo", "cat", "true", "git status", "env", "xargs", "bash", "eval", "find")
]


@dataclass(frozen=True)
class Row:
    id: str
    command: str
    default: str
    auto_edit: str
    yolo: str
    roots: tuple[str, ...] | None = None  # the programs the confirmation names, when asked
    effect: str = "MARKER"  # the file whose appearance (or, for `victim`, disappearance) shows bash ran it
    runs: bool = False  # whether running the line has that effect (it does only where it is allowed)
    exclude: tuple[str, ...] = ()


def row(id: str, command: str, outcomes: str, **kw: object) -> Row:
    default, auto_edit, yolo = outcomes.split()
    return Row(id, command, default, auto_edit, yolo, **kw)  # type: ignore[arg-type]


ROWS = [
    # The bypasses of issue 11.
    row("issue-backslash-newline", "git status $\\\n(touch MARKER)", "refuse refuse refuse"),
    row("issue-case-body", "case a in a) rm victim;; esac", "ask ask allow", roots=("rm",), effect="victim", runs=True),
    row(
        "issue-function-body",
        "function f { rm victim; }; f",
        "ask ask allow",
        roots=("rm", "f"),
        effect="victim",
        runs=True,
    ),
    row("issue-arithmetic", "echo $((1+2))", "allow allow allow"),
    # Lists, pipelines and compound commands: every command in them is checked.
    row("list-semicolon", "echo a;touch MARKER", "ask ask allow", roots=("echo", "touch"), runs=True),
    row("list-and-or", "true&&touch MARKER||echo no", "ask ask allow", roots=("true", "touch", "echo"), runs=True),
    row("pipeline", "echo a|touch MARKER", "ask ask allow", roots=("echo", "touch"), runs=True),
    row("background", "echo a & touch MARKER", "ask ask allow", roots=("echo", "touch"), runs=True),
    row("newline", "echo a\ntouch MARKER", "ask ask allow", roots=("echo", "touch"), runs=True),
    row(
        "subshell-group-negation", "(true) && { ! touch MARKER; }", "ask ask allow", roots=("true", "touch"), runs=True
    ),
    row("if-for-while-bodies", "if true; then for i in 1; do touch MARKER; done; fi", "ask ask allow", runs=True),
    row("comment", "echo a # ; touch MARKER", "allow allow allow"),
    row("comment-ends-at-newline", "echo a # \\\ntouch MARKER", "ask ask allow", roots=("echo", "touch"), runs=True),
    row("line-continuation-joins-word", "ec\\\nho hi \\\n  there", "allow allow allow"),
    row("line-continuation-hides-comment", "echo a\\\n#$(touch MARKER)", "refuse refuse refuse"),
    # Quoting and escapes.
    row("quoted-program-name", "$'\\x74ouch' MARKER", "ask ask allow", roots=("touch",), runs=True),
    row("single-quotes", "echo '$(touch MARKER) `touch MARKER`'", "allow allow allow"),
    row("escaped-dollar", 'echo "\\$(touch MARKER)"', "allow allow allow"),
    row("ansi-c-string", "echo $'$(touch MARKER)'", "allow allow allow"),
    # Command and process substitution, wherever bash runs it.
    row("dollar-paren", "echo $(touch MARKER)", "refuse refuse refuse"),
    row("backticks", "echo `touch MARKER`", "refuse refuse refuse"),
    row("in-double-quotes", 'echo "x $(touch MARKER)"', "refuse refuse refuse"),
    row("quote-inside-expansion", "echo \"${x:-'$(touch MARKER)'}\"", "refuse refuse refuse"),
    row("expansion-default", "echo ${x:-$(touch MARKER)}", "refuse refuse refuse"),
    row("process-substitution-in", "cat <(touch MARKER)", "refuse refuse refuse"),
    row("process-substitution-out", "echo >(touch MARKER)", "refuse refuse refuse"),
    row("assignment-value", "x=$(touch MARKER)", "refuse refuse refuse"),
    row("export-value", "export X=`touch MARKER`", "refuse refuse refuse"),
    row("test-command", "[[ $(touch MARKER) ]]", "refuse refuse refuse"),
    row("arithmetic-command", "(( $(touch MARKER) ))", "refuse refuse refuse"),
    row("inside-arithmetic", "echo $(( 1 + $(touch MARKER) ))", "refuse refuse refuse"),
    row("redirect-target", "echo hi > $(touch MARKER)", "refuse refuse refuse"),
    row("prompt-expansion", "x='$(touch MARKER)'; echo ${x@P}", "refuse refuse refuse"),
    row("regex-backticks", "[[ a =~ `touch MARKER` ]]", "refuse refuse refuse"),
    # Here-documents: unquoted ones expand, quoted ones are data.
    row("heredoc-unquoted", "cat <<EOF\n$(touch MARKER)\nEOF", "refuse refuse refuse"),
    row("heredoc-unquoted-backticks", "cat <<EOF\n`touch MARKER`\nEOF", "refuse refuse refuse"),
    row("heredoc-quoted", "cat <<'EOF'\n$(touch MARKER)\nEOF", "allow allow allow"),
    row("heredoc-fed-to-shell", "bash <<'EOF'\ntouch MARKER\nEOF", "ask ask allow", roots=("bash", "touch"), runs=True),
    # Programs that run other commands: what they run is checked too.
    row("shell-reading-a-pipe", "echo touch MARKER | bash", "ask ask allow", roots=("echo", "bash"), runs=True),
    row("eval", 'eval "touch MARKER"', "ask ask allow", roots=("eval", "touch"), runs=True),
    row("eval-computed", "x='touch MARKER'; eval \"$x\"", "ask ask allow", roots=("eval",), runs=True),
    row("bash-c", "bash -c 'touch MARKER'", "ask ask allow", roots=("bash", "touch"), runs=True),
    row("bash-c-substitution", "bash -c 'echo $(touch MARKER)'", "refuse refuse refuse"),
    row("env-wrapper", "env -i PATH=/usr/bin:/bin touch MARKER", "ask ask allow", roots=("env", "touch"), runs=True),
    row("xargs", "echo MARKER | xargs touch", "ask ask allow", roots=("echo", "xargs", "touch"), runs=True),
    row("find-exec", "find . -maxdepth 0 -exec touch MARKER \\;", "ask ask allow", roots=("find", "touch"), runs=True),
    row("wrapper-and-command-allowed", "env FOO=1 echo hi", "allow allow allow"),
    # Redirection and variables.
    row("redirect-write", "echo hi > out.txt", "ask allow allow", effect="out.txt", runs=True),
    row("redirect-dev-null", "echo hi 2>/dev/null >&2", "allow allow allow"),
    row("assignment-before-command", "PATH=/tmp git status", "ask ask allow", roots=("git",)),
    # What does not parse (or is too big to check) is never allowed, in yolo either.
    row("unbalanced-quote", "touch MARKER; echo 'unbalanced", "ask ask ask"),
    row("too-long", "touch MARKER; echo " + "x" * MAX_COMMAND_BYTES, "ask ask ask"),
    row("nul-byte", "touch MARKER; echo a\x00b", "refuse refuse refuse"),
    # tools.exclude sees through spellings and wrappers.
    row("exclude-spelling", "\\rm victim", "deny deny deny", effect="victim", exclude=("rm",)),
    row("exclude-path", "/bin/rm victim", "deny deny deny", effect="victim", exclude=("rm",)),
    row("exclude-wrapped", "sudo bash -c 'rm victim'", "deny deny deny", effect="victim", exclude=("rm",)),
    row("exclude-computed-name", "c=rm; $c victim", "ask ask ask", effect="victim", exclude=("rm",)),
]


class Recorder:
    """The user: records what it is asked and declines."""

    def __init__(self) -> None:
        self.asked: list[ev.ConfirmationDetails] = []

    async def confirm(self, call: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> ConfirmationResult:
        self.asked.append(details)
        return ConfirmationResult("reject")


async def run_row(r: Row, mode: str, root: Path, tmp: Path) -> tuple[str, Recorder, CallOutcome]:
    ctx = ToolContext(Workspace([root]), LocalFileSystem(), tmp / "tmp", shell_inactivity_timeout_s=30.0)
    policy = Policy(mode=mode, rules=ALLOWED, exclude=[f"run_shell_command({e})" for e in r.exclude])  # type: ignore[arg-type]
    user = Recorder()
    emit = lambda _e: None  # noqa: E731
    scheduler = Scheduler(
        ToolRegistry([ShellTool(ctx)]), policy, Approval(policy, user, emit), emit, answers=AnswerOptions(tmp)
    )
    outcomes: dict[str, CallOutcome] = {}
    await scheduler.run([ToolCallRequestInfo("c1", "run_shell_command", {"command": r.command})], outcomes)
    outcome = outcomes["c1"]
    error = str(outcome.response.get("error", ""))
    if user.asked:
        return "ask", user, outcome
    if outcome.status == "error" and error.startswith("Tool execution denied by policy"):
        return "deny", user, outcome
    if outcome.status == "error" and error.startswith("Invalid parameters"):
        return "refuse", user, outcome
    assert outcome.status == "success", outcome
    return "allow", user, outcome


@pytest.mark.parametrize("r", ROWS, ids=[r.id for r in ROWS])
async def test_shell_safety(r: Row, tmp_path: Path) -> None:
    for mode in MODES:
        root = tmp_path / mode / "ws"
        root.mkdir(parents=True)
        (root / "victim").write_text("still here\n")
        got, user, outcome = await run_row(r, mode, root, tmp_path / mode)
        assert got == getattr(r, mode), (mode, outcome.response)
        if got == "ask" and r.roots is not None:
            assert user.asked[-1].root_commands == r.roots
        ran = not (root / "victim").exists() if r.effect == "victim" else (root / r.effect).exists()
        # Only an allowed call runs; a refused, denied or declined one never reaches bash.
        assert ran == (got == "allow" and r.runs), (mode, got)


def test_the_docs_table_is_this_table() -> None:
    """docs/tools.md's shell-safety table lists exactly these rows with these outcomes."""
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## Shell safety", 1)[1]
    documented: dict[str, tuple[str, str, str]] = {}
    for line in section.splitlines():
        m = re.search(r"`test_shell_safety\[([\w-]+)\]`", line)
        if m:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            documented[m.group(1)] = (cells[-4], cells[-3], cells[-2])
    assert documented == {r.id: (r.default, r.auto_edit, r.yolo) for r in ROWS}


HOSTILE = Path(__file__).with_name("hostile_shell_lines.txt")
PAYLOAD = '#!/bin/sh\ntouch "$HUNT_DIR/{name}"\n'


def decision(tool: ShellTool, command: str, mode: str) -> str:
    """What the scheduler would do before running: refuse in validation, or the policy's answer."""
    if tool.validate({"command": command}) is not None:
        return "refuse"
    return Policy(mode=mode, rules=ALLOWED).decide(tool, {"command": command})[0]  # type: ignore[arg-type]


def test_bash_never_runs_what_was_allowed(tmp_path: Path) -> None:
    """Differential check against bash itself: for ~280 hostile lines, whenever the real bash runs the hidden
    command, default mode did not allow the line; whenever it runs a substitution, no mode allowed it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("payload", "subpayload"):
        (bin_dir / name).write_text(PAYLOAD.format(name=name))
        (bin_dir / name).chmod(0o755)
    ctx = ToolContext(Workspace([tmp_path]), LocalFileSystem(), tmp_path / "tmp")
    tool = ShellTool(ctx)
    lines = [c.strip("\n") for c in HOSTILE.read_text(encoding="utf-8").split("\n===\n")[1:]]
    assert len(lines) > 150
    checked = 0
    for i, command in enumerate(lines):
        work = tmp_path / f"w{i}"
        work.mkdir()
        env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", HUNT_DIR=str(work), HOME=str(tmp_path))
        with contextlib.suppress(subprocess.TimeoutExpired):
            subprocess.run(
                ["bash", "-c", command], cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=10
            )
        hidden, substituted = (work / "payload").exists(), (work / "subpayload").exists()
        default, yolo = decision(tool, command, "default"), decision(tool, command, "yolo")
        if hidden or substituted:
            checked += 1
            assert default != "allow", command
        if substituted:
            assert yolo in ("refuse", "ask"), command
    assert checked > 150  # the lines really do run their payloads in bash
