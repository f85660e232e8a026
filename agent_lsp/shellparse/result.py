"""What the bash analysis reports about a command line: the result types the shell tool and the policy read."""

from __future__ import annotations

from dataclasses import dataclass

# Parts standing for commands no parse can see; they match no allow rule.
STDIN_SCRIPT = "<commands read from standard input>"  # ``curl ... | sh``
COMPUTED_COMMAND = "<command computed when it runs>"  # ``sudo $cmd``, ``eval "$x"``, ``bash -c "$x"``


@dataclass(frozen=True)
class ShellCommand:
    """One command bash would run: its text, its program and its words when they are literal."""

    text: str
    root: str  # program name without directory; "" for a bare assignment; the raw text when not literal
    literal: bool  # root and every argument are plain words, so ``normalized`` is what bash runs
    normalized: str  # root plus literal arguments, one space apart (``/bin/rm -rf x`` -> ``rm -rf x``)
    known_program: bool = True  # False when the program's name is itself computed (``$cmd x``, ``r* x``)


@dataclass(frozen=True)
class ShellParse:
    """What a command line would do, as far as a parse can tell."""

    ok: bool  # parsed with no error, and every view of it agrees; False means "cannot tell: ask"
    commands: tuple[str, ...] = ()  # text of each command bash runs, in order (nested and wrapped ones too)
    roots: tuple[str, ...] = ()  # their programs, unique, in order
    substitution: str | None = None  # the first command/process substitution bash would run, as a label
    parts: tuple[ShellCommand, ...] = ()  # the commands in detail, aligned with ``commands``
    writes: tuple[str, ...] = ()  # files written through output redirection (not /dev/null, not fd copies)
    problem: str | None = None  # why ``ok`` is False
