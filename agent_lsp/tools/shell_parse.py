"""Pure bash-syntax helpers for shell safety: substitution detection, command splitting and root commands."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field

# Context kinds on the scanner's stack.
_TOP = "top"  # plain command text (also the inside of $(...), <(...), >(...))
_SQ = "sq"  # '...'
_ANSI = "ansi"  # $'...' where backslash escapes
_DQ = "dq"  # "..."
_BT = "bt"  # `...`

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_REDIRECTION = re.compile(r"^(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})?(&>>|&>|>>|>&|>\||<<<|<<-|<<|<&|<>|>|<)")
# Words that open or continue a compound command; the command that follows them is the real root.
_PREFIX_WORDS = frozenset({"!", "{", "(", "if", "then", "else", "elif", "do", "while", "until", "time"})
# Words that only close a compound command: they run nothing themselves.
_CLOSING_WORDS = frozenset({"}", ")", "fi", "done", "esac", "))"})


@dataclass
class _Frame:
    kind: str
    depth: int = 0  # open plain parentheses inside a $( ... ) frame, so `$(f (x))` closes at the right one


@dataclass
class _Heredoc:
    delimiter: str
    strip_tabs: bool
    expands: bool


@dataclass
class _Scan:
    substitution: str | None = None
    segments: list[str] = field(default_factory=list)


def _scan(command: str) -> _Scan:
    """One pass over ``command`` with a context stack, as bash's tokenizer sees quoting."""
    result = _Scan()
    stack: list[_Frame] = [_Frame(_TOP)]
    segment: list[str] = []
    pending: list[_Heredoc] = []
    n = len(command)
    i = 0

    def found(construct: str) -> None:
        if result.substitution is None:
            result.substitution = construct

    def flush() -> None:
        text = "".join(segment).strip()
        if text:
            result.segments.append(text)
        segment.clear()

    def at_word_start(pos: int) -> bool:
        return pos == 0 or command[pos - 1] in " \t\n;&|()<>"

    while i < n:
        c = command[i]
        frame = stack[-1]
        kind = frame.kind
        nxt = command[i + 1] if i + 1 < n else ""

        if kind == _SQ:
            if c == "'":
                stack.pop()
            segment.append(c)
            i += 1
            continue
        if kind == _ANSI:
            if c == "\\":
                segment.append(command[i : i + 2])
                i += 2
                continue
            if c == "'":
                stack.pop()
            segment.append(c)
            i += 1
            continue
        if c == "\\":
            # An escaped character is literal everywhere we get here (plain text, "...", `...`).
            segment.append(command[i : i + 2])
            i += 2
            continue
        if c == "$" and nxt == "(":
            found("$(...)")
            stack.append(_Frame(_TOP))
            stack[-1].depth = 1
            segment.append("$(")
            i += 2
            continue
        if c == "`":
            if kind == _BT:
                stack.pop()
            else:
                found("`...`")
                stack.append(_Frame(_BT))
            segment.append(c)
            i += 1
            continue
        if kind == _DQ:
            if c == '"':
                stack.pop()
            segment.append(c)
            i += 1
            continue

        # Plain text: top level, or inside $(...) / <(...) / >(...) / `...`.
        if c == "'":
            stack.append(_Frame(_SQ))
        elif c == "$" and nxt == "'":
            stack.append(_Frame(_ANSI))
            segment.append("$'")
            i += 2
            continue
        elif c == '"':
            stack.append(_Frame(_DQ))
        elif c in "<>" and nxt == "(":
            found(f"{c}(...)")
            stack.append(_Frame(_TOP, depth=1))
            segment.append(c + nxt)
            i += 2
            continue
        elif c == "#" and at_word_start(i):
            # A comment runs to the end of the line and is not part of any command.
            end = command.find("\n", i)
            i = n if end < 0 else end
            continue
        elif c == "(" and frame.depth:
            frame.depth += 1
        elif c == ")" and frame.depth:
            frame.depth -= 1
            if frame.depth == 0 and len(stack) > 1:
                stack.pop()
        elif command.startswith("<<<", i):
            # A here-string: its word is ordinary text, scanned like any other.
            segment.append("<<<")
            i += 3
            continue
        elif command.startswith("<<", i):
            i = _read_heredoc_operator(command, i, pending, segment)
            continue
        elif len(stack) == 1 and c in ";&|\n":
            # ``>&``, ``<&``, ``&>`` and ``>|`` are redirections, not command separators.
            prev = command[i - 1] if i else ""
            if c == "&" and (prev in "<>" or nxt == ">"):
                segment.append(c)
                i += 1
                continue
            if c == "|" and prev == ">":
                segment.append(c)
                i += 1
                continue
            flush()
            i += 1
            while i < n and command[i] in ";&|" and c != "\n":
                i += 1
            if c == "\n" and pending:
                i = _skip_heredoc_bodies(command, i, pending, found)
            continue
        elif c == "\n" and pending:
            segment.append(c)
            i = _skip_heredoc_bodies(command, i + 1, pending, found)
            continue
        segment.append(c)
        i += 1

    flush()
    return result


def _read_heredoc_operator(command: str, i: int, pending: list[_Heredoc], segment: list[str]) -> int:
    """Consume ``<<WORD`` / ``<<-WORD`` and remember the here-document it announces."""
    start = i
    i += 2
    strip_tabs = i < len(command) and command[i] == "-"
    if strip_tabs:
        i += 1
    while i < len(command) and command[i] in " \t":
        i += 1
    word_start = i
    quoted = False
    delimiter: list[str] = []
    while i < len(command) and command[i] not in " \t\n;&|<>()":
        ch = command[i]
        if ch in "'\"":
            quoted = True
            close = command.find(ch, i + 1)
            close = len(command) if close < 0 else close
            delimiter.append(command[i + 1 : close])
            i = close + 1
            continue
        if ch == "\\":
            quoted = True
            delimiter.append(command[i + 1 : i + 2])
            i += 2
            continue
        delimiter.append(ch)
        i += 1
    if i > word_start:
        pending.append(_Heredoc("".join(delimiter), strip_tabs, expands=not quoted))
    segment.append(command[start:i])
    return i


def _skip_heredoc_bodies(command: str, i: int, pending: list[_Heredoc], found: Callable[[str], None]) -> int:
    """Step over the bodies of pending here-documents (which start at ``i``), checking expanding ones."""
    for doc in pending:
        while i < len(command):
            end = command.find("\n", i)
            end = len(command) if end < 0 else end
            line = command[i:end]
            check = line.lstrip("\t") if doc.strip_tabs else line
            i = end + 1
            if check == doc.delimiter:
                break
            if doc.expands:
                construct = find_substitution_in_heredoc(line)
                if construct:
                    found(construct)
    pending.clear()
    return min(i, len(command))


def find_substitution_in_heredoc(line: str) -> str | None:
    """The substitution an unquoted here-document line would run: quotes are literal there."""
    i = 0
    while i < len(line):
        c = line[i]
        if c == "\\":
            i += 2
            continue
        if c == "$" and line[i + 1 : i + 2] == "(":
            return "$(...)"
        if c == "`":
            return "`...`"
        i += 1
    return None


def find_substitution(command: str) -> str | None:
    """The first command/process substitution bash would run (``$(...)``, backticks, ``<(...)``,
    ``>(...)``), or None. Single-quoted text, escaped characters and comments do not count."""
    return _scan(command).substitution


def split_commands(command: str) -> list[str]:
    """The simple commands of a command line, split on ``&&``, ``||``, ``;``, ``|``, ``&`` and newlines
    outside quotes and substitutions. Comments and here-document bodies are left out."""
    return _scan(command).segments


def _words(segment: str) -> list[str]:
    """Shell words with quotes removed; unquoted parentheses and redirection operators are their own words."""
    words: list[str] = []
    current: list[str] = []
    has_word = False
    i = 0
    n = len(segment)

    def end_word() -> None:
        nonlocal has_word
        if has_word:
            words.append("".join(current))
        current.clear()
        has_word = False

    while i < n:
        c = segment[i]
        if c in " \t\n":
            end_word()
            i += 1
        elif c == "\\":
            if segment[i + 1 : i + 2] != "\n":
                current.append(segment[i + 1 : i + 2])
                has_word = True
            i += 2
        elif c == "'":
            close = segment.find("'", i + 1)
            close = n if close < 0 else close
            current.append(segment[i + 1 : close])
            has_word = True
            i = close + 1
        elif c == '"':
            j = i + 1
            while j < n and segment[j] != '"':
                if segment[j] == "\\" and segment[j + 1 : j + 2] in ('"', "\\", "$", "`"):
                    current.append(segment[j + 1])
                    j += 2
                    continue
                current.append(segment[j])
                j += 1
            has_word = True
            i = j + 1
        elif c in "()":
            end_word()
            words.append(c)
            i += 1
        else:
            if not has_word or c in "<>":
                m = _REDIRECTION.match(segment, i)
                # Mid-word only a bare operator splits (``echo hi>out``); ``2>`` counts at a word's start.
                if m and (not has_word or not m.group(1)):
                    end_word()
                    words.append(m.group(0))
                    i = m.end()
                    continue
            current.append(c)
            has_word = True
            i += 1
    end_word()
    return words


def root_command(command: str) -> str:
    """The program the (first) command runs: env assignments, redirections and compound-command words
    skipped, directory stripped (``FOO=1 /usr/bin/git status`` -> ``git``). Empty when there is none."""
    for segment in split_commands(command):
        root = _segment_root(segment)
        if root:
            return root
    return ""


def _segment_root(segment: str) -> str:
    words = _words(segment)
    i = 0
    while i < len(words):
        w = words[i]
        if _REDIRECTION.fullmatch(w):
            i += 2  # the operator and its target
            continue
        if _ASSIGNMENT.match(w) or w in _PREFIX_WORDS:
            i += 1
            continue
        if w in _CLOSING_WORDS:
            i += 1
            continue
        base = os.path.basename(w.rstrip("/")) if "/" in w else w
        return base or w
    return ""


def root_commands(command: str) -> list[str]:
    """Every command's root, unique, in order of appearance."""
    seen: list[str] = []
    for segment in split_commands(command):
        root = _segment_root(segment)
        if root and root not in seen:
            seen.append(root)
    return seen
