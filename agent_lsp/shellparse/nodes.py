"""Reading tree-sitter bash nodes as bash does: literal word values, quoting, line continuations."""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # no tree-sitter import at module load: the grammar loads on the first command checked
    from tree_sitter import Node

# Constructs whose text bash never expands and where a backslash-newline is kept as written.
VERBATIM = frozenset({"raw_string", "ansi_c_string", "comment"})
_GLOB = re.compile(r"(?<!\\)(?:\\\\)*[*?\[]")  # an unescaped glob character: the word names files, not itself
_BRACE = re.compile(r"(?<!\\)(?:\\\\)*\{[^{}]*(?:,|\.\.)[^{}]*\}")  # ``{a,b}`` / ``{1..3}`` expand to several words


def node_text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "surrogateescape")


def encode_text(text: str | None) -> bytes | None:
    """``text`` as the bytes bash would get; None when it has no such form (a lone surrogate from ``$'\\ud800'``)."""
    if text is None:
        return None
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return None


def source_slice(source: bytes, node: Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")


def program_basename(program: str) -> str:
    return os.path.basename(program.rstrip("/")) or program if "/" in program else program


def prompt_transform(node: Node) -> bool:
    """``${var@P}`` expands the value as a prompt string, which runs the substitutions inside it."""
    children = node.children
    return any(node_text(a) == "@" and node_text(b) == "P" for a, b in itertools.pairwise(children))


def visit(root: Node) -> Iterator[tuple[Node, Node | None, bool, bool]]:
    """Every node in order with its parent, whether bash reads it as written (single quotes, ``$'...'``,
    comments, quoted here-documents: not descended into) and whether it lies inside double quotes or an
    expanding here-document, where quote characters are plain text. (Node.parent is not used: tree-sitter
    finds a parent by walking down from the root, which makes a long command line quadratic.)"""
    stack: list[tuple[Node, Node | None, bool, bool]] = [(root, None, False, False)]
    while stack:
        node, parent, verbatim, quoted = stack.pop()
        kind = node.type
        verbatim = verbatim or (kind == "comment") or (kind in VERBATIM and not quoted)
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
    return start is not None and any(q in node_text(start) for q in "'\"\\")


def verbatim_ranges(root: Node) -> list[tuple[int, int]]:
    """Byte ranges bash reads as written: single-quoted and ``$'...'`` strings, comments, quoted here-docs."""
    ranges = [(n.start_byte, n.end_byte) for n, _, verbatim, _ in visit(root) if verbatim]
    ranges.sort()
    # Verbatim nodes are never nested (their insides are not visited), so the list is ordered and disjoint.
    return ranges


def verbatim_texts(source: bytes, ranges: list[tuple[int, int]]) -> list[bytes]:
    return [source[a:b] for a, b in ranges]


def join_lines(source: bytes, verbatim: list[tuple[int, int]]) -> bytes:
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


def missed_substitution(text: str, *, unquoted: bool) -> str | None:
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


def redirects_of(command: Node, parent: Node | None) -> list[Node]:
    """The command's redirections, also those tree-sitter hangs on the statement around it."""
    redirects = list(command.children_by_field_name("redirect"))
    if parent is not None and parent.type == "redirected_statement" and parent.child_by_field_name("body") == command:
        redirects += parent.children_by_field_name("redirect")
    return redirects


def arguments_of(command: Node, redirects: list[Node]) -> list[Node]:
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


def literal_value(node: Node | None, depth: int = 0) -> str | None:
    """The word's value when it is fixed text (no expansion, glob or brace), else None."""
    if node is None or depth > 8:
        return None
    kind = node.type
    if kind == "command_name":
        return literal_value(node.named_child(0), depth + 1) if node.named_child_count == 1 else None
    if kind in ("word", "number"):
        text = node_text(node)
        if _GLOB.search(text) or _BRACE.search(text):
            return None
        return re.sub(r"\\(.)", r"\1", text, flags=re.S)
    if kind == "raw_string":
        return node_text(node)[1:-1]
    if kind == "ansi_c_string":
        return _ansi_c(node_text(node)[2:-1])
    if kind == "string":
        parts: list[str] = []
        for c in node.named_children:
            if c.type != "string_content":
                return None
            parts.append(re.sub(r"\\([$`\"\\])", r"\1", node_text(c)))
        return "".join(parts)
    if kind == "translated_string":
        return literal_value(node.named_child(0), depth + 1) if node.named_child_count == 1 else None
    if kind == "concatenation":
        if _BRACE.search(node_text(node)):
            return None  # tree-sitter splits ``{rm,-rf}`` into pieces; bash expands the whole
        values = [literal_value(c, depth + 1) for c in node.children]
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
