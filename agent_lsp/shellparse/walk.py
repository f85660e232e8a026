"""The walk over a bash parse tree (and the command strings nested in it) that collects commands and writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent_lsp.shellparse.grammar import new_parser
from agent_lsp.shellparse.nodes import (
    VERBATIM,
    arguments_of,
    join_lines,
    literal_value,
    missed_substitution,
    node_text,
    program_basename,
    prompt_transform,
    redirects_of,
    source_slice,
    verbatim_ranges,
    verbatim_texts,
    visit,
)
from agent_lsp.shellparse.result import COMPUTED_COMMAND, STDIN_SCRIPT, ShellCommand, ShellParse
from agent_lsp.shellparse.wrappers import fed_scripts, inner_commands

if TYPE_CHECKING:  # no tree-sitter import at module load: the grammar loads on the first command checked
    from tree_sitter import Node

MAX_COMMAND_BYTES = 100_000  # longer command lines are not parsed (so never auto-approved): bounds the work
MAX_NESTING = 6  # eval / bash -c / sudo ... inside each other; deeper is "does not parse"
MAX_TOTAL_BYTES = 4 * MAX_COMMAND_BYTES  # all nested re-parses of one command line together
MAX_NODES = 25_000  # syntax nodes walked for one command line (a 300-line script has a few thousand)

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


@dataclass
class _Found:
    order: tuple[int, ...]
    command: ShellCommand


@dataclass
class Walker:
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
        parser = new_parser()
        tree = parser.parse(source)
        if not self.count(tree.root_node):
            return
        if b"\\\n" not in source:
            self.walk(tree.root_node, source, depth, order)
            return
        verbatim = verbatim_ranges(tree.root_node)
        joined = join_lines(source, verbatim)
        if joined == source:
            self.walk(tree.root_node, source, depth, order)
            return
        # bash removes backslash-newline before it splits words (``$\<newline>(`` is ``$(``); tree-sitter
        # reads it as a space. Judge the joined text, and trust it only when both readings agree.
        first = Walker()
        first.walk(tree.root_node, source, depth, order, commands=False)
        if first.substitution:
            self.substituted(first.substitution)
        joined_tree = parser.parse(joined)
        if not self.count(joined_tree.root_node):
            return
        if tree.root_node.has_error:
            self.fail("the command does not parse")
        elif verbatim_texts(source, verbatim) != verbatim_texts(joined, verbatim_ranges(joined_tree.root_node)):
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
        for node, parent, verbatim, quoted in visit(root):
            kind = node.type
            if node.is_error or node.is_missing:
                self.fail("the command does not parse")
            if verbatim:
                continue
            if kind == "command_substitution":
                self.substituted("`...`" if node.child(0) is not None and node_text(node.child(0)) == "`" else "$(...)")
            elif kind == "process_substitution":
                self.substituted(node_text(node.child(0))[:1] + "(...)" if node.child(0) is not None else "<(...)")
            elif kind == "expansion" and prompt_transform(node):
                self.substituted("${...@P}")
            elif commands:
                self.collect(node, parent, source, depth, order)
            if node.child_count == 0 and node.is_named and (kind in _EXPANDED_LEAVES or kind in VERBATIM):
                # Quotes are literal inside "..." (``"${x:-'$(id)'}"`` runs id), so there a raw_string is text.
                missed = missed_substitution(node_text(node), unquoted=kind == "word" and not quoted)
                if missed:
                    self.substituted(missed)

    def collect(self, node: Node, parent: Node | None, source: bytes, depth: int, order: int) -> None:
        """Record what one node runs or writes."""
        kind = node.type
        if kind == "command":
            self.command(node, parent, source, depth, (order, node.start_byte))
        elif kind in ("declaration_command", "unset_command", "test_command"):
            keyword = node_text(node.child(0)) if node.child(0) is not None else ""
            self.add((order, node.start_byte), source_slice(source, node), keyword, literal=False)
        elif kind in _ASSIGNMENTS and parent is not None and parent.type in _STATEMENT_PARENTS:
            self.add((order, node.start_byte), source_slice(source, node), "", literal=False)
        elif kind == "file_redirect":
            self.redirect(node)

    def add(
        self, order: tuple[int, ...], text: str, root: str, *, literal: bool, normalized: str = "", known: bool = True
    ) -> None:
        command = ShellCommand(text.strip(), root, literal, normalized or text.strip(), known)
        self.found.append(_Found(order, command))

    def redirect(self, node: Node) -> None:
        operator = next((node_text(c) for c in node.children if not c.is_named), "")
        targets = node.children_by_field_name("destination")
        if operator not in _WRITE_OPERATORS or not targets:
            return
        target = literal_value(targets[0])
        if operator == ">&" and target is not None and (target == "-" or target.isdigit()):
            return  # ``2>&1``, ``>&-``: copies or closes a descriptor, writes no file
        if target in _HARMLESS_TARGETS:
            return
        self.writes.append(target if target is not None else node_text(targets[0]))

    def command(self, node: Node, parent: Node | None, source: bytes, depth: int, order: tuple[int, ...]) -> None:
        name = node.child_by_field_name("name")
        text = source_slice(source, node)
        if name is None:
            self.add(order, text, "", literal=False)
            return
        program = literal_value(name)
        root = program_basename(program) if program is not None else node_text(name)
        redirects = redirects_of(node, parent)
        words = arguments_of(node, redirects)
        values = [literal_value(w) for w in words]
        literal = program is not None and all(v is not None for v in values)
        normalized = " ".join([root, *(v for v in values if v is not None)]) if literal else text
        self.add(order, text, root, literal=literal, normalized=normalized, known=program is not None)
        if program is None:
            return
        inner_order = (*order, 1)
        for inner in inner_commands(root, words, values, source):
            if inner is None:
                # ``sudo $cmd``, ``eval "$x"``: what runs is decided at run time; no rule can cover it.
                self.add(inner_order, COMPUTED_COMMAND, "", literal=False, known=False)
            else:
                self._nested_at(inner, depth, inner_order)
        for body in fed_scripts(root, redirects, values):
            if body is None:
                # ``echo "$x" | bash``: whatever arrives on its input runs; no rule can cover that.
                self.add(inner_order, STDIN_SCRIPT, "", literal=False, known=False)
            else:
                self._nested_at(body, depth, inner_order)

    def _nested_at(self, text: bytes, depth: int, order: tuple[int, ...]) -> None:
        """Check a command string bash runs from inside another command (``bash -c``, ``eval``, ``sudo``)."""
        sub = Walker(budget=self.budget, nodes=self.nodes)
        sub.parse(text, depth=depth + 1, order=0)
        self.budget, self.nodes = sub.budget, sub.nodes
        for f in sub.found:
            self.found.append(_Found((*order, *f.order), f.command))
        if sub.substitution:
            self.substituted(sub.substitution)
        self.writes.extend(sub.writes)
        if sub.problem:
            self.fail(sub.problem)
