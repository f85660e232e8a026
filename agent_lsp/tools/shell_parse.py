"""Bash command analysis for shell safety on the tree-sitter bash grammar: which commands a line runs, their
root programs, the files it writes by redirection, and any command or process substitution in it."""

from __future__ import annotations

import functools
import itertools
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the grammar loads lazily, on the first command checked, never on the start-up path
    from tree_sitter import Language, Node, Parser

log = logging.getLogger(__name__)

MAX_COMMAND_BYTES = 100_000  # longer command lines are not parsed (so never auto-approved): bounds the work
MAX_NESTING = 6  # eval / bash -c / sudo ... inside each other; deeper is "does not parse"
MAX_TOTAL_BYTES = 4 * MAX_COMMAND_BYTES  # all nested re-parses of one command line together
MAX_NODES = 25_000  # syntax nodes walked for one command line (a 300-line script has a few thousand)

# Constructs whose text bash never expands and where a backslash-newline is kept as written.
_VERBATIM = frozenset({"raw_string", "ansi_c_string", "comment"})
# Named leaves bash expands: a backtick or ``$(`` left in one is a substitution tree-sitter did not see
# (it misses backticks in here-document bodies and in ``[[ =~ ]]`` regexes, for example).
_EXPANDED_LEAVES = frozenset({"word", "string_content", "heredoc_content", "heredoc_body", "regex", "extglob_pattern"})
# Statements that run no program but change what the following commands do (``PATH=/tmp/x; git ...``).
_STATEMENT_PARENTS = frozenset(
    {
        "program",
        "list",
        "pipeline",
        "compound_statement",
        "subshell",
        "do_group",
        "if_statement",
        "elif_clause",
        "else_clause",
        "case_item",
        "negated_command",
        "redirected_statement",
        "command_substitution",
        "process_substitution",
    }
)
_ASSIGNMENTS = frozenset({"variable_assignment", "variable_assignments"})
_WRITE_OPERATORS = frozenset({">", ">>", "&>", "&>>", ">|", "<>", ">&"})
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "busybox"})
_GLOB = re.compile(r"(?<!\\)(?:\\\\)*[*?\[]")  # an unescaped glob character: the word names files, not itself
_BRACE = re.compile(r"(?<!\\)(?:\\\\)*\{[^{}]*(?:,|\.\.)[^{}]*\}")  # ``{a,b}`` / ``{1..3}`` expand to several words


@dataclass(frozen=True)
class _Wrapper:
    """A program that runs the command given in its arguments (``sudo rm x`` runs ``rm x``)."""

    with_value: frozenset[str] = frozenset()  # options that take the next word as their value
    positional: int = 0  # words between the options and the command (``timeout 5 cmd``)
    assignments: bool = False  # skips NAME=VALUE words (env)
    no_command: frozenset[str] = frozenset()  # options after which no command runs (``command -v``)


_WRAPPERS: dict[str, _Wrapper] = {
    "env": _Wrapper(frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}), assignments=True),
    "sudo": _Wrapper(frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-R", "-T", "-U", "-r", "-t", "--user"})),
    "doas": _Wrapper(frozenset({"-u", "-C"})),
    "nohup": _Wrapper(),
    "setsid": _Wrapper(),
    "builtin": _Wrapper(),
    "exec": _Wrapper(frozenset({"-a"})),
    "command": _Wrapper(no_command=frozenset({"-v", "-V"})),
    "time": _Wrapper(frozenset({"-f", "-o", "--format", "--output"})),
    "nice": _Wrapper(frozenset({"-n", "--adjustment"})),
    "ionice": _Wrapper(frozenset({"-c", "-n", "--class", "--classdata"}), no_command=frozenset({"-p", "-P", "-u"})),
    "timeout": _Wrapper(frozenset({"-s", "-k", "--signal", "--kill-after"}), positional=1),
    "stdbuf": _Wrapper(frozenset({"-i", "-o", "-e"})),
    "chroot": _Wrapper(frozenset({"--userspec", "--groups"}), positional=1),
    "flock": _Wrapper(frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}), positional=1),
    "xargs": _Wrapper(
        frozenset({"-a", "-E", "-I", "-L", "-n", "-P", "-s", "-d", "--arg-file", "--delimiter", "--max-args"})
    ),
}
# Parts standing for commands no parse can see; they match no allow rule.
STDIN_SCRIPT = "<commands read from standard input>"  # ``curl ... | sh``
COMPUTED_COMMAND = "<command computed when it runs>"  # ``sudo $cmd``, ``eval "$x"``, ``bash -c "$x"``
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


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


@functools.cache
def _language() -> Language:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Language(tree_sitter_bash.language())


def _parser() -> Parser:
    import tree_sitter

    # A parser per call: cheap, and never shared between threads.
    return tree_sitter.Parser(_language())


def parse_shell(command: str) -> ShellParse:
    """Parse ``command`` as bash would read it with ``bash -c``."""
    if "\x00" in command:
        return ShellParse(False, problem="the command contains a NUL byte")
    try:
        source = command.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return ShellParse(False, problem="the command is not valid text")
    try:
        _language()
    except (ImportError, OSError, ValueError) as exc:  # a broken install: nothing can be checked, so ask
        log.warning("the bash grammar could not be loaded: %s", exc)
        return ShellParse(False, problem=f"the bash grammar could not be loaded ({exc})")
    walker = _Walker()
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


@dataclass
class _Found:
    order: tuple[int, ...]
    command: ShellCommand


@dataclass
class _Walker:
    """Walks parse trees (the command line's and those of the command strings inside it) and collects."""

    found: list[_Found] = field(default_factory=list)
    substitution: str | None = None
    writes: list[str] = field(default_factory=list)
    problem: str | None = None
    budget: int = MAX_TOTAL_BYTES
    nodes: int = MAX_NODES

    def result(self) -> ShellParse:
        self.found.sort(key=lambda f: f.order)
        parts = tuple(f.command for f in self.found)
        roots: list[str] = []
        for p in parts:
            if p.root and p.root not in roots:
                roots.append(p.root)
        return ShellParse(
            ok=self.problem is None,
            commands=tuple(p.text for p in parts),
            roots=tuple(roots),
            substitution=self.substitution,
            parts=parts,
            writes=tuple(self.writes),
            problem=self.problem,
        )

    def fail(self, problem: str) -> None:
        if self.problem is None:
            self.problem = problem

    def substituted(self, label: str) -> None:
        if self.substitution is None:
            self.substitution = label

    # -- parsing ---------------------------------------------------------------------------------------

    def parse(self, source: bytes, *, depth: int, order: int) -> None:
        """Parse one command string; ``order`` places what it finds among the outer line's commands."""
        if depth > MAX_NESTING:
            self.fail("commands are nested too deeply to check")
            return
        if len(source) > MAX_COMMAND_BYTES or len(source) > self.budget:
            self.fail(f"the command is too long to check (over {MAX_COMMAND_BYTES} bytes)")
            return
        self.budget -= len(source)
        parser = _parser()
        tree = parser.parse(source)
        if not self.count(tree.root_node):
            return
        if b"\\\n" not in source:
            self.walk(tree.root_node, source, depth, order)
            return
        verbatim = _verbatim_ranges(tree.root_node)
        joined = _join_lines(source, verbatim)
        if joined == source:
            self.walk(tree.root_node, source, depth, order)
            return
        # bash removes backslash-newline before it splits words (``$\<newline>(`` is ``$(``); tree-sitter
        # reads it as a space. Judge the joined text, and trust it only when both readings agree.
        first = _Walker()
        first.walk(tree.root_node, source, depth, order, commands=False)
        if first.substitution:
            self.substituted(first.substitution)
        joined_tree = parser.parse(joined)
        if not self.count(joined_tree.root_node):
            return
        if tree.root_node.has_error:
            self.fail("the command does not parse")
        elif _verbatim_texts(source, verbatim) != _verbatim_texts(joined, _verbatim_ranges(joined_tree.root_node)):
            self.fail("the line continuations in the command are ambiguous")
        self.walk(joined_tree.root_node, joined, depth, order)

    def count(self, root: Node) -> bool:
        """Take a tree's nodes from the budget; False (and not ok) when they do not fit."""
        self.nodes -= root.descendant_count
        if self.nodes < 0:
            self.fail(f"the command is too complex to check (over {MAX_NODES} syntax nodes)")
            return False
        return True

    # -- walking ---------------------------------------------------------------------------------------

    def walk(self, root: Node, source: bytes, depth: int, order: int, *, commands: bool = True) -> None:
        """Collect from one tree; with ``commands`` False only substitutions and parse errors."""
        if root.has_error:
            self.fail("the command does not parse")
        for node, parent, verbatim, quoted in _visit(root):
            kind = node.type
            if node.is_error or node.is_missing:
                self.fail("the command does not parse")
            if verbatim:
                continue
            if kind == "command_substitution":
                self.substituted("`...`" if node.child(0) is not None and _text(node.child(0)) == "`" else "$(...)")
            elif kind == "process_substitution":
                self.substituted(_text(node.child(0))[:1] + "(...)" if node.child(0) is not None else "<(...)")
            elif kind == "expansion" and _prompt_transform(node):
                self.substituted("${...@P}")
            elif commands:
                self.collect(node, parent, source, depth, order)
            if node.child_count == 0 and node.is_named and (kind in _EXPANDED_LEAVES or kind in _VERBATIM):
                # Quotes are literal inside "..." (``"${x:-'$(id)'}"`` runs id), so there a raw_string is text.
                missed = _missed_substitution(_text(node), unquoted=kind == "word" and not quoted)
                if missed:
                    self.substituted(missed)

    def collect(self, node: Node, parent: Node | None, source: bytes, depth: int, order: int) -> None:
        """Record what one node runs or writes."""
        kind = node.type
        if kind == "command":
            self.command(node, parent, source, depth, (order, node.start_byte))
        elif kind in ("declaration_command", "unset_command", "test_command"):
            keyword = _text(node.child(0)) if node.child(0) is not None else ""
            self.add((order, node.start_byte), _slice(source, node), keyword, literal=False)
        elif kind in _ASSIGNMENTS and parent is not None and parent.type in _STATEMENT_PARENTS:
            self.add((order, node.start_byte), _slice(source, node), "", literal=False)
        elif kind == "file_redirect":
            self.redirect(node)

    def add(
        self, order: tuple[int, ...], text: str, root: str, *, literal: bool, normalized: str = "", known: bool = True
    ) -> None:
        command = ShellCommand(text.strip(), root, literal, normalized or text.strip(), known)
        self.found.append(_Found(order, command))

    def redirect(self, node: Node) -> None:
        operator = next((_text(c) for c in node.children if not c.is_named), "")
        targets = node.children_by_field_name("destination")
        if operator not in _WRITE_OPERATORS or not targets:
            return
        target = _literal(targets[0])
        if operator == ">&" and target is not None and (target == "-" or target.isdigit()):
            return  # ``2>&1``, ``>&-``: copies or closes a descriptor, writes no file
        if target in _HARMLESS_TARGETS:
            return
        self.writes.append(target if target is not None else _text(targets[0]))

    def command(self, node: Node, parent: Node | None, source: bytes, depth: int, order: tuple[int, ...]) -> None:
        name = node.child_by_field_name("name")
        text = _slice(source, node)
        if name is None:
            self.add(order, text, "", literal=False)
            return
        program = _literal(name)
        root = _basename(program) if program is not None else _text(name)
        redirects = _redirects(node, parent)
        words = _arguments(node, redirects)
        values = [_literal(w) for w in words]
        literal = program is not None and all(v is not None for v in values)
        normalized = " ".join([root, *(v for v in values if v is not None)]) if literal else text
        self.add(order, text, root, literal=literal, normalized=normalized, known=program is not None)
        if program is None:
            return
        inner_order = (*order, 1)
        for inner in _inner_commands(root, words, values, source):
            if inner is None:
                # ``sudo $cmd``, ``eval "$x"``: what runs is decided at run time; no rule can cover it.
                self.add(inner_order, COMPUTED_COMMAND, "", literal=False, known=False)
            else:
                self._nested_at(inner, depth, inner_order)
        for body in _fed_scripts(root, redirects, values):
            if body is None:
                # ``echo "$x" | bash``: whatever arrives on its input runs; no rule can cover that.
                self.add(inner_order, STDIN_SCRIPT, "", literal=False, known=False)
            else:
                self._nested_at(body, depth, inner_order)

    def _nested_at(self, text: bytes, depth: int, order: tuple[int, ...]) -> None:
        """Check a command string bash runs from inside another command (``bash -c``, ``eval``, ``sudo``)."""
        sub = _Walker(budget=self.budget, nodes=self.nodes)
        sub.parse(text, depth=depth + 1, order=0)
        self.budget, self.nodes = sub.budget, sub.nodes
        for f in sub.found:
            self.found.append(_Found((*order, *f.order), f.command))
        if sub.substitution:
            self.substituted(sub.substitution)
        self.writes.extend(sub.writes)
        if sub.problem:
            self.fail(sub.problem)


# -- helpers on nodes and text ---------------------------------------------------------------------------


def _text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "surrogateescape")


def _encode(text: str | None) -> bytes | None:
    """``text`` as the bytes bash would get; None when it has no such form (a lone surrogate from ``$'\\ud800'``)."""
    if text is None:
        return None
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return None


def _slice(source: bytes, node: Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")


def _basename(program: str) -> str:
    return os.path.basename(program.rstrip("/")) or program if "/" in program else program


def _prompt_transform(node: Node) -> bool:
    """``${var@P}`` expands the value as a prompt string, which runs the substitutions inside it."""
    children = node.children
    return any(_text(a) == "@" and _text(b) == "P" for a, b in itertools.pairwise(children))


def _visit(root: Node) -> Iterator[tuple[Node, Node | None, bool, bool]]:
    """Every node in order with its parent, whether bash reads it as written (single quotes, ``$'...'``,
    comments, quoted here-documents: not descended into) and whether it lies inside double quotes or an
    expanding here-document, where quote characters are plain text. (Node.parent is not used: tree-sitter
    finds a parent by walking down from the root, which makes a long command line quadratic.)"""
    stack: list[tuple[Node, Node | None, bool, bool]] = [(root, None, False, False)]
    while stack:
        node, parent, verbatim, quoted = stack.pop()
        kind = node.type
        verbatim = verbatim or (kind == "comment") or (kind in _VERBATIM and not quoted)
        yield node, parent, verbatim, quoted
        if verbatim:
            continue
        inner = quoted
        if kind in ("string", "translated_string", "heredoc_body"):
            inner = True
        elif kind in ("command_substitution", "process_substitution"):
            inner = False
        quoted_doc = kind == "heredoc_redirect" and _quoted_heredoc(node)
        for child in reversed(node.children):
            stack.append((child, node, quoted_doc and child.type == "heredoc_body", inner))


def _quoted_heredoc(redirect: Node) -> bool:
    """``<<'EOF'``, ``<<"EOF"``, ``<<\\EOF``: the body is taken as written, nothing in it expands."""
    start = next((c for c in redirect.children if c.type == "heredoc_start"), None)
    return start is not None and any(q in _text(start) for q in "'\"\\")


def _verbatim_ranges(root: Node) -> list[tuple[int, int]]:
    """Byte ranges bash reads as written: single-quoted and ``$'...'`` strings, comments, quoted here-docs."""
    ranges = [(n.start_byte, n.end_byte) for n, _, verbatim, _ in _visit(root) if verbatim]
    ranges.sort()
    # Verbatim nodes are never nested (their insides are not visited), so the list is ordered and disjoint.
    return ranges


def _verbatim_texts(source: bytes, ranges: list[tuple[int, int]]) -> list[bytes]:
    return [source[a:b] for a, b in ranges]


def _join_lines(source: bytes, verbatim: list[tuple[int, int]]) -> bytes:
    """``source`` with every unescaped backslash-newline outside ``verbatim`` removed, as bash reads it."""
    if b"\\\n" not in source:
        return source
    out = bytearray()
    ranges = iter(verbatim)
    current = next(ranges, None)
    i, n = 0, len(source)
    while i < n:
        while current is not None and current[1] <= i:
            current = next(ranges, None)
        if current is not None and current[0] <= i:
            out += source[i : current[1]]
            i = current[1]
            continue
        byte = source[i]
        if byte == 0x5C:  # backslash: it escapes the next byte; before a newline both disappear
            if source[i + 1 : i + 2] != b"\n":
                out += source[i : i + 2]
            i += 2
            continue
        out.append(byte)
        i += 1
    return bytes(out)


def _missed_substitution(text: str, *, unquoted: bool) -> str | None:
    """A substitution left as plain text in a node bash expands (the grammar did not recognise it)."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "`":
            return "`...`"
        if c == "$" and text[i + 1 : i + 2] == "(":
            return "$(...)"
        if unquoted and c in "<>" and text[i + 1 : i + 2] == "(":
            return f"{c}(...)"
        i += 1
    return None


def _redirects(command: Node, parent: Node | None) -> list[Node]:
    """The command's redirections, also those tree-sitter hangs on the statement around it."""
    redirects = list(command.children_by_field_name("redirect"))
    if parent is not None and parent.type == "redirected_statement" and parent.child_by_field_name("body") == command:
        redirects += parent.children_by_field_name("redirect")
    return redirects


def _arguments(command: Node, redirects: list[Node]) -> list[Node]:
    """The command's words after its name, in order. tree-sitter files words that follow a redirection
    (``sudo >/dev/null rm x``) under the redirection; bash passes them to the command, and so do we."""
    words = list(command.children_by_field_name("argument"))
    for r in redirects:
        if r.type == "file_redirect":
            words += r.children_by_field_name("destination")[1:]
        elif r.type == "herestring_redirect":
            words += list(r.named_children)[1:]
    words.sort(key=lambda w: w.start_byte)
    return words


def _literal(node: Node | None, depth: int = 0) -> str | None:
    """The word's value when it is fixed text (no expansion, glob or brace), else None."""
    if node is None or depth > 8:
        return None
    kind = node.type
    if kind == "command_name":
        return _literal(node.named_child(0), depth + 1) if node.named_child_count == 1 else None
    if kind in ("word", "number"):
        text = _text(node)
        if _GLOB.search(text) or _BRACE.search(text):
            return None
        return re.sub(r"\\(.)", r"\1", text, flags=re.S)
    if kind == "raw_string":
        return _text(node)[1:-1]
    if kind == "ansi_c_string":
        return _ansi_c(_text(node)[2:-1])
    if kind == "string":
        parts: list[str] = []
        for c in node.named_children:
            if c.type != "string_content":
                return None
            parts.append(re.sub(r"\\([$`\"\\])", r"\1", _text(c)))
        return "".join(parts)
    if kind == "translated_string":
        return _literal(node.named_child(0), depth + 1) if node.named_child_count == 1 else None
    if kind == "concatenation":
        if _BRACE.search(_text(node)):
            return None  # tree-sitter splits ``{rm,-rf}`` into pieces; bash expands the whole
        values = [_literal(c, depth + 1) for c in node.children]
        return None if any(v is None for v in values) else "".join(v for v in values if v is not None)
    return None


_ANSI_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_ANSI_SIMPLE |= {"v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_ANSI_ESCAPE = re.compile(
    r"\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|c(.)|(.))", re.S
)


def _ansi_c(body: str) -> str:
    """The value of ``$'...'`` (bash's ANSI-C quoting)."""

    def one(m: re.Match[str]) -> str:
        octal, hex2, u4, u8, ctrl, other = m.groups()
        if octal:
            return chr(int(octal, 8) & 0xFF)
        if hex2:
            return chr(int(hex2, 16))
        if u4 or u8:
            code = int(u4 or u8, 16)
            return chr(code) if code < 0x110000 else ""
        if ctrl:
            return chr(ord(ctrl) & 0x1F)
        return _ANSI_SIMPLE.get(other, "\\" + other)

    return _ANSI_ESCAPE.sub(one, body)


def _inner_commands(root: str, words: list[Node], values: list[str | None], source: bytes) -> Iterator[bytes | None]:
    """The command strings a program runs from its arguments (None where they are not literal)."""

    def from_word(i: int) -> bytes | None:
        """The source text of the words from ``i`` on, as the command they form."""
        if i >= len(words):
            return None
        if any(v is None for v in values[i:]):
            return None
        return source[words[i].start_byte : words[-1].end_byte]

    def string_arg(i: int) -> bytes | None:
        return _encode(values[i]) if i < len(values) else None

    if root == "eval":
        if values:
            yield None if any(v is None for v in values) else _encode(" ".join(v for v in values if v is not None))
        return
    if root in _SHELLS:
        i = _shell_command_string(values)
        if i is not None:
            yield string_arg(i)
        return
    if root in ("su", "runuser"):
        for i, v in enumerate(values):
            if v in ("-c", "--command") and i + 1 < len(values):
                yield string_arg(i + 1)
            elif v is not None and v.startswith("--command="):
                yield _encode(v.removeprefix("--command="))
        return
    if root == "trap":
        first = 1 if values and values[0] == "--" else 0
        if first < len(values) and values[first] not in (None, "-", "") and not str(values[first]).startswith("-"):
            yield string_arg(first)
        elif first < len(values) and values[first] is None:
            yield None
        return
    if root == "watch":
        i = _skip_options(values, _Wrapper(frozenset({"-n", "--interval", "-d", "-q"})))
        if i is not None and i < len(values):
            joined = values[i:]
            yield None if any(v is None for v in joined) else _encode(" ".join(v for v in joined if v is not None))
        return
    if root == "find":
        i = 0
        while i < len(values):
            if values[i] in _FIND_EXEC:
                end = next((j for j in range(i + 1, len(values)) if values[j] in (";", "+")), len(values))
                if end > i + 1:
                    inner = values[i + 1 : end]
                    yield (
                        None
                        if any(v is None for v in inner)
                        else source[words[i + 1].start_byte : words[end - 1].end_byte]
                    )
                i = end
            i += 1
        return
    wrapper = _WRAPPERS.get(root)
    if wrapper is None:
        return
    if root == "env":
        for i, v in enumerate(values):
            if v in ("-S", "--split-string") and i + 1 < len(values):
                yield string_arg(i + 1)
            elif v is not None and v.startswith("--split-string="):
                yield _encode(v.removeprefix("--split-string="))
    start = _skip_options(values, wrapper)
    if start is None:
        yield None
    elif start < len(values):
        yield from_word(start)


def _skip_options(values: list[str | None], wrapper: _Wrapper) -> int | None:
    """Index of the wrapped command's first word; None when an option is not literal; len() for none."""
    i = 0
    while i < len(values):
        v = values[i]
        if v is None:
            return None
        if v == "--":
            i += 1
            break
        if v in wrapper.no_command:
            return len(values)
        if wrapper.assignments and "=" in v and not v.startswith("-"):
            i += 1
            continue
        if v.startswith("-") and len(v) > 1:
            i += 2 if v in wrapper.with_value else 1
            continue
        break
    return i + wrapper.positional if i + wrapper.positional <= len(values) else len(values)


def _shell_command_string(values: list[str | None]) -> int | None:
    """For ``bash [options] -c STRING``: the index of STRING."""
    takes_value = {"-o", "+o", "-O", "+O", "--rcfile", "--init-file"}
    wants_string = False
    i = 0
    while i < len(values):
        v = values[i]
        if v is None:
            return i if wants_string else None
        if v in takes_value:
            i += 2
            continue
        if v == "--" or not v.startswith(("-", "+")) or v == "-":
            return i if wants_string else None
        if not v.startswith("--") and "c" in v[1:]:
            wants_string = True
        i += 1
    return None


def _fed_scripts(root: str, redirects: list[Node], values: list[str | None]) -> Iterator[bytes | None]:
    """A shell given no script reads commands from its here-document or here-string: check those too.
    None stands for commands read from a pipe or a file on standard input, which no parse can see."""
    if root not in _SHELLS or any(
        v is not None and v.startswith("-") and not v.startswith("--") and "c" in v[1:] for v in values
    ):
        return
    if "-s" not in values and any(v is None or not v.startswith(("-", "+")) for v in values):
        return  # a script file (``bash build.sh``): its commands are the file's, as for any program
    fed = False
    for r in redirects:
        if r.type == "heredoc_redirect":
            for body in (c for c in r.children if c.type == "heredoc_body"):
                fed = True
                yield body.text or b""
        elif r.type == "herestring_redirect" and r.named_child_count:
            fed = True
            yield _encode(_literal(r.named_child(0)))
    if not fed:
        yield None
