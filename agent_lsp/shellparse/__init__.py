"""Bash command analysis for shell safety on the tree-sitter bash grammar: which commands a line runs, their
root programs, the files it writes by redirection, and any command or process substitution in it."""

from __future__ import annotations

import logging

from agent_lsp.shellparse.grammar import language
from agent_lsp.shellparse.result import ShellParse
from agent_lsp.shellparse.walk import Walker

# The analysis is split by job: grammar (lazy grammar loading), walk (the tree walk), nodes (reading words as
# bash does), wrappers (eval, bash -c, sudo, xargs, find -exec) and result (the result types). This package sits
# below both the shell tool and the policy engine, which use this entry point.
__all__ = [
    "find_substitution",
    "parse_shell",
    "root_command",
    "root_commands",
    "split_commands",
]

log = logging.getLogger(__name__)


def parse_shell(command: str) -> ShellParse:
    """Parse ``command`` as bash would read it with ``bash -c``."""
    if "\x00" in command:
        return ShellParse(False, problem="the command contains a NUL byte")
    try:
        source = command.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return ShellParse(False, problem="the command is not valid text")
    try:
        language()
    except (ImportError, OSError, ValueError) as exc:  # a broken install: nothing can be checked, so ask
        log.warning("the bash grammar could not be loaded: %s", exc)
        return ShellParse(False, problem=f"the bash grammar could not be loaded ({exc})")
    walker = Walker()
    walker.parse(source, depth=0, order=0)
    return walker.result()


def find_substitution(command: str) -> str | None:
    """The first command/process substitution bash would run (``$(...)``, backticks, ``<(...)``,
    ``>(...)``, ``${var@P}``), or None. Single-quoted text, quoted here-documents and comments do not count."""
    return parse_shell(command).substitution


def split_commands(command: str) -> list[str]:
    """The text of every command the line runs, in order: the parts of lists and pipelines and those inside
    compound commands, function bodies, substitutions and wrappers (``sudo X``, ``bash -c 'X'``, ``eval X``)."""
    return list(parse_shell(command).commands)


def root_command(command: str) -> str:
    """The program the first command runs, without its directory (``FOO=1 /usr/bin/git status`` -> ``git``);
    empty when there is none."""
    roots = parse_shell(command).roots
    return roots[0] if roots else ""


def root_commands(command: str) -> list[str]:
    """Every command's program, unique, in order of appearance."""
    return list(parse_shell(command).roots)
