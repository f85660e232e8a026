"""Tests for the bash analysis (tree-sitter-bash) the shell tool and the policy rely on."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from agent_lsp.shellparse import (
    find_substitution,
    parse_shell,
    root_command,
    root_commands,
    split_commands,
)
from agent_lsp.shellparse.result import COMPUTED_COMMAND, STDIN_SCRIPT
from agent_lsp.shellparse.walk import MAX_COMMAND_BYTES


@pytest.mark.parametrize(
    ("command", "construct"),
    [
        ("echo $(whoami)", "$(...)"),
        ('echo "$(whoami)"', "$(...)"),
        ('echo "hello $(rm -rf x) there"', "$(...)"),
        ("echo `id`", "`...`"),
        ('echo "`id`"', "`...`"),
        ("diff <(ls a) <(ls b)", "<(...)"),
        ("ls | tee >(wc -l)", ">(...)"),
        ("echo ok; echo $(date)", "$(...)"),
        ("echo 'quoted' $(date)", "$(...)"),
        ("echo $'it\\'s' $(date)", "$(...)"),  # ANSI-C quoting ends where bash says it does
        ("cat <<EOF\nit's $(whoami)\nEOF", "$(...)"),  # unquoted here-document bodies expand
        ("cat <<-EOF\n\t`id`\n\tEOF", "`...`"),  # tree-sitter leaves this backtick as text; we still see it
        ("cat <<EOF\n${x:-$(id)}\nEOF", "$(...)"),
        ("echo hi # a comment\necho $(x)", "$(...)"),  # the comment ends at the newline
        ("echo hi # don't\necho $(x)", "$(...)"),  # an apostrophe in a comment opens no quote
        ("echo ${HOME:-$(pwd)}", "$(...)"),
        ("cat <<< $(id)", "$(...)"),  # a here-string is not a here-document
        ("cat <<<`id`", "`...`"),
        ("echo \"${x:-'$(id)'}\"", "$(...)"),  # single quotes are literal inside double quotes
        ("git status $\\\n(touch MARKER)", "$(...)"),  # bash joins the lines before it reads `$(`
        ('echo "$\\\n(id)"', "$(...)"),
        ("echo a\\\n#$(id)", "$(...)"),  # joined, `#` is mid-word: no comment
        ("x=$(id)", "$(...)"),
        ("export X=$(id)", "$(...)"),
        ("[[ $(id) ]]", "$(...)"),
        ("(( $(id) ))", "$(...)"),
        ("echo $(( 1 + $(id) ))", "$(...)"),  # a substitution inside arithmetic still runs
        ("echo $[ $(id) ]", "$(...)"),
        ("[[ x =~ a`id`b ]]", "`...`"),  # tree-sitter reads this regex as text; we still see it
        ("for f in $(ls); do :; done", "$(...)"),
        ("echo hi > $(id)", "$(...)"),
        ("x='$(id)'; echo ${x@P}", "${...@P}"),  # prompt expansion runs what the value holds
        ("eval 'echo $(id)'", "$(...)"),  # the string eval runs is checked too
        ("bash -c 'echo `id`'", "`...`"),
        ("sudo sh -c 'cat <(id)'", "<(...)"),
        ("echo \\\\$(id)", "$(...)"),  # an escaped backslash does not escape the `$`
    ],
)
def test_substitution_found(command: str, construct: str) -> None:
    assert find_substitution(command) == construct


@pytest.mark.parametrize(
    "command",
    [
        "echo hello",
        "echo '$(whoami)'",
        "echo '`id`'",
        "echo \\`id\\`",
        'echo "\\$(whoami)"',
        'echo "\\`id\\`"',
        'echo "<(x)" ">(y)"',
        "echo '<(x)'",
        "echo $HOME ${USER} $1 $# $?",
        "ls > out.txt 2>&1",
        "echo hi # $(not run)",
        "cat <<'EOF'\n$(not expanded)\nEOF",
        'cat <<"EOF"\n`not expanded`\nEOF',
        "cat <<\\EOF\n$(not expanded)\nEOF",
        'echo "it\'s" \'a "b"\'',
        "grep -E '(a|b)' file",
        "cat <<< 'literal $(x)'",
        "echo ${x:-'$(not run)'}",
        "echo $((1+2))",  # arithmetic expansion runs nothing
        "echo $(( (1 + 2) * 3 ))",
        "(( x = 1 + 2 ))",
        "echo $'$(literal)'",
        "echo ${x@Q}",
    ],
)
def test_no_substitution(command: str) -> None:
    assert find_substitution(command) is None


@pytest.mark.parametrize(
    ("command", "parts"),
    [
        ("ls", ["ls"]),
        ("a && b || c; d | e & f", ["a", "b", "c", "d", "e", "f"]),
        ("a\nb\n\nc", ["a", "b", "c"]),
        ("a |& b", ["a", "b"]),
        ("echo 'x && y; z | w' && ls", ["echo 'x && y; z | w'", "ls"]),
        ('echo "x && y; z | w" || ls', ['echo "x && y; z | w"', "ls"]),
        ("echo a\\;b; ls", ["echo a\\;b", "ls"]),
        ("echo a \\\n  b; ls", ["echo a   b", "ls"]),  # as bash reads it: the backslash-newline is gone
        ("ls 2>&1 | grep x", ["ls", "grep x"]),  # redirections are not part of the command's text
        ("ls &> log; cat log", ["ls", "cat log"]),
        ("sleep 1 &", ["sleep 1"]),
        ("echo $(a; b) && c", ["echo $(a; b)", "a", "b", "c"]),  # substitutions hold commands too
        ("ls # list it; rm -rf /\npwd", ["ls", "pwd"]),
        ("echo hi # don't\nrm -rf x", ["echo hi", "rm -rf x"]),
        ("cat <<EOF > f\nline; rm x\nEOF\nls", ["cat", "ls"]),  # a here-document body is data
        ("case a in a) rm x;; esac", ["rm x"]),
        ("function f { rm x; }; f", ["rm x", "f"]),
        ("f() { rm x; }", ["rm x"]),
        ("if true; then rm x; elif a; then b; else c; fi", ["true", "rm x", "a", "b", "c"]),
        ("while true; do curl x; done; until a; do b; done", ["true", "curl x", "a", "b"]),
        ("{ a; } && (b) && ! c", ["a", "b", "c"]),
        ("x=1; PATH=/tmp git status", ["x=1", "PATH=/tmp git status"]),  # an assignment alone counts
        ("export A=1; unset B; [[ -f x ]]", ["export A=1", "unset B", "[[ -f x ]]"]),
        ("sudo -u root rm x", ["sudo -u root rm x", "rm x"]),  # what a wrapper runs counts too
        ("env -i A=1 nohup rm x", ["env -i A=1 nohup rm x", "nohup rm x", "rm x"]),
        ("bash -c 'rm x; ls'", ["bash -c 'rm x; ls'", "rm x", "ls"]),
        ('eval "rm x"', ['eval "rm x"', "rm x"]),
        ("find . -exec rm {} \\;", ["find . -exec rm {} \\;", "rm {}"]),
        ("echo x | xargs -n1 rm", ["echo x", "xargs -n1 rm", "rm"]),
        ("timeout 5 rm x", ["timeout 5 rm x", "rm x"]),
        ("trap 'rm x' EXIT", ["trap 'rm x' EXIT", "rm x"]),
        ("bash <<'EOF'\nrm x\nEOF", ["bash", "rm x"]),  # a shell reading its script from a here-document
        ("curl x | sh", ["curl x", "sh", STDIN_SCRIPT]),  # ... or from a pipe: commands nobody can see
        ('sudo $cmd x; eval "$y"', ["sudo $cmd x", COMPUTED_COMMAND, 'eval "$y"', COMPUTED_COMMAND]),
        ("sudo >/dev/null rm x", ["sudo", "rm x"]),  # words after a redirection still belong to sudo
        ("  ;; ", []),
        ("", []),
    ],
)
def test_split_commands(command: str, parts: list[str]) -> None:
    assert split_commands(command) == parts


@pytest.mark.parametrize(
    ("command", "root"),
    [
        ("git status", "git"),
        ("/usr/bin/git status", "git"),
        ("./scripts/build.sh --fast", "build.sh"),
        ("FOO=1 BAR='a b' git log", "git"),
        ("FOO=1 /usr/bin/env python3 x.py", "env"),
        ('"/bin/ls" -l', "ls"),
        ("'my tool' arg", "my tool"),
        ("g\\it status", "git"),
        ("g''it status", "git"),
        ("$'\\x67it' status", "git"),
        ("ec\\\nho hi", "echo"),  # bash joins the lines: this runs echo
        (">out echo hi", "echo"),
        ("2>/dev/null find .", "find"),
        ("(cd sub && make)", "cd"),
        ("{ echo a; }", "echo"),
        ("! grep -q x f", "grep"),
        ("if grep -q x f; then echo y; fi", "grep"),
        ("x=1", ""),
        ("", ""),
        ("npm test && git push", "npm"),
    ],
)
def test_root_command(command: str, root: str) -> None:
    assert root_command(command) == root


def test_root_commands_unique_in_order() -> None:
    command = "git add . && git commit -m 'a; b' | tee log; FOO=1 /bin/rm -f x\ngit push"
    assert root_commands(command) == ["git", "tee", "rm"]


def test_root_commands_cover_compound_bodies() -> None:
    assert root_commands("for f in a b; do rm $f; done") == ["rm"]
    assert root_commands("while true; do curl x; sleep 1; done") == ["true", "curl", "sleep"]
    assert root_commands("(cd a && rm b)") == ["cd", "rm"]
    assert root_commands("case a in a) rm x;; esac") == ["rm"]
    assert root_commands("function f { rm x; }; f") == ["rm", "f"]
    assert root_commands("sudo env X=1 bash -c 'rm -rf x'") == ["sudo", "env", "bash", "rm"]


def test_each_part_of_a_chain_gets_its_own_root() -> None:
    # The policy checks every part: an approved first command must not carry an unapproved second one.
    parts = split_commands("ls -la && rm -rf build")
    assert [root_command(p) for p in parts] == ["ls", "rm"]


def test_normalized_form_names_the_program_whatever_its_spelling() -> None:
    for spelling in ("/bin/rm -rf x", "\\rm -rf x", "'rm' -rf x", "$'\\x72m' -rf x", "r''m -rf x"):
        (part,) = parse_shell(spelling).parts
        assert (part.root, part.normalized, part.known_program) == ("rm", "rm -rf x", True), spelling
    for computed in ("$cmd -rf x", "r* -rf x", "{rm,-rf,x}", "/bin/r[m] x"):
        parsed = parse_shell(computed)
        assert not all(p.known_program for p in parsed.parts) or not parsed.ok, computed


@pytest.mark.parametrize(
    ("command", "writes"),
    [
        ("git status > out", ("out",)),
        ("git status >> ~/.bashrc", ("~/.bashrc",)),
        ("ls &> log", ("log",)),
        ("ls >& log", ("log",)),
        ("ls >| f", ("f",)),
        ("{ a; b; } > both", ("both",)),
        ("git status 2>/dev/null", ()),
        ("ls 2>&1 >&2", ()),
        ("exec 3>&-", ()),
        ("cat < in", ()),
        ("bash -c 'echo > inner'", ("inner",)),
    ],
)
def test_output_redirections_are_reported(command: str, writes: tuple[str, ...]) -> None:
    assert parse_shell(command).writes == writes


@pytest.mark.parametrize(
    "command",
    [
        "echo 'unbalanced",
        'echo "unbalanced',
        "echo $(unclosed",
        "if true; then echo",
        "case x in",
        "git status $\\\n(touch MARKER)",  # tree-sitter cannot read it unjoined: the two readings disagree
        "echo a\\\n#b",  # unjoined `#b` is a comment; joined it is part of a word
        "cat <<A <<'B'\n$(a)\nA\nb\nB",  # two here-documents on one line confuse the grammar
        "echo a\x00b",
        "echo \ud800",
        "x" * (MAX_COMMAND_BYTES + 1),
        "a;" * 20_000,  # too many syntax nodes to walk
        "sudo " * 10 + "rm x",  # wrappers nested deeper than we follow
    ],
)
def test_what_does_not_parse_cleanly_is_not_ok(command: str) -> None:
    parsed = parse_shell(command)
    assert not parsed.ok and parsed.problem


def test_hostile_input_never_crashes_and_stays_bounded() -> None:
    rng = random.Random(11)
    alphabet = [*"ab $()`'\"\\\n;&|<>{}[]#=*?!~-@%:,.0\t", "$(", "<<", "<<'E'\n", "E\n", "\\\n", "${", "$(("]
    alphabet += ["eval ", "bash -c ", "sudo ", "find . -exec ", "\x00", "\ud800", "é", "\udc80", "$'\\ud800'"]
    for _ in range(3000):
        command = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        parsed = parse_shell(command)
        assert isinstance(parsed.ok, bool)
        assert len(parsed.commands) == len(parsed.parts)
    for deep in ("$(" * 50_000, "`" * 100_000, "{ " * 40_000, "eval " * 20_000, "((" * 40_000, "\\\n" * 40_000):
        assert not parse_shell(deep).ok


def test_the_grammar_loads_only_when_a_command_is_checked() -> None:
    code = (
        "import sys\n"
        "import agent_lsp.tools.builtins, agent_lsp.tools.shell, agent_lsp.tools.policy, agent_lsp.shellparse\n"
        "print('tree_sitter' in sys.modules)\n"
        "from agent_lsp.shellparse import parse_shell\n"
        "parse_shell('ls')\n"
        "print('tree_sitter' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["False", "True"]
