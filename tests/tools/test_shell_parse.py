"""Tests for the pure shell-syntax helpers the shell tool and the policy rely on."""

from __future__ import annotations

import pytest

from agent_lsp.tools.shell_parse import find_substitution, root_command, root_commands, split_commands


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
        ("echo $((1 + 2))", "$(...)"),  # arithmetic shares the $( opener; refused to stay on the safe side
        ("cat <<EOF\nit's $(whoami)\nEOF", "$(...)"),  # unquoted here-document bodies expand
        ("cat <<-EOF\n\t`id`\n\tEOF", "`...`"),
        ("echo hi # a comment\necho $(x)", "$(...)"),  # the comment ends at the newline
        ("echo hi # don't\necho $(x)", "$(...)"),  # an apostrophe in a comment opens no quote
        ("echo ${HOME:-$(pwd)}", "$(...)"),
        ("cat <<< $(id)", "$(...)"),  # a here-string is not a here-document
        ("cat <<<`id`", "`...`"),
        ("echo \"${x:-'$(id)'}\"", "$(...)"),  # single quotes are literal inside double quotes
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
        "echo \\$(whoami)",
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
        ("echo a \\\n  b; ls", ["echo a \\\n  b", "ls"]),
        ("ls 2>&1 | grep x", ["ls 2>&1", "grep x"]),
        ("ls &> log; cat log", ["ls &> log", "cat log"]),
        ("echo a >| f", ["echo a >| f"]),
        ("sleep 1 &", ["sleep 1"]),
        ("echo $(a; b) && c", ["echo $(a; b)", "c"]),
        ("ls # list it; rm -rf /\npwd", ["ls", "pwd"]),
        ("echo hi # don't\nrm -rf x", ["echo hi", "rm -rf x"]),
        ("cat <<EOF > f\nline; rm x\nEOF\nls", ["cat <<EOF > f", "ls"]),
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
    assert root_commands("for f in a b; do rm $f; done") == ["for", "rm"]
    assert root_commands("while true; do curl x; sleep 1; done") == ["true", "curl", "sleep"]
    assert root_commands("(cd a && rm b)") == ["cd", "rm"]


def test_each_part_of_a_chain_gets_its_own_root() -> None:
    # The policy checks every part: an approved first command must not carry an unapproved second one.
    parts = split_commands("ls -la && rm -rf build")
    assert [root_command(p) for p in parts] == ["ls", "rm"]
