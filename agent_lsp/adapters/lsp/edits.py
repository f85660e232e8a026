"""Turns an old/new text pair into minimal LSP TextEdits and wraps them in WorkspaceEdits.

Minimal matters: an editor applies each TextEdit as a separate change, so cursor, marks, folds and undo
history survive everywhere outside the characters that really changed. Pure: plain dicts in LSP shapes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_lsp.adapters.lsp.documents import EOL, line_starts, utf16_len
from agent_lsp.linediff import opcodes

TextEdit = dict[str, Any]
ANNOTATION_ID = "agent-lsp"


def text_edits(old: str, new: str) -> list[TextEdit]:
    """Non-overlapping TextEdits, in document order, that turn ``old`` into ``new`` (ranges against ``old``)."""
    if old == new:
        return []
    a, a_terminated = _lines(old)
    b, b_terminated = _lines(new)
    a_offs = _Offsets(a, a_terminated)
    b_offs = _Offsets(b, b_terminated)
    edits: list[TextEdit] = []
    for i1, i2, j1, j2 in _changed_regions(a, b):
        begin, end = a_offs.at(i1), a_offs.at(i2)
        replacement = new[b_offs.at(j1) : b_offs.at(j2)]
        if begin == end == len(old) and old.endswith("\n") and replacement.endswith("\n"):
            # An append after the final newline: some clients (Neovim) then add a stray empty line. The same
            # text results from inserting just before that newline, which every client applies cleanly.
            nl = 2 if old.endswith("\r\n") and replacement.endswith("\r\n") else 1
            end = len(old) - nl
            begin = old.rfind("\n", 0, end) + 1  # _trimmed wants the start of a line: the last one
            replacement = old[begin:] + replacement[:-nl]
            i1 = old.count("\n", 0, begin)
        edits.append(_trimmed(old, begin, end, replacement, i1))
    return edits


class _Offsets:
    """Start offsets of line elements, computed on demand for ascending indices (C-speed sums between them)."""

    def __init__(self, lines: list[str], terminated: bool) -> None:
        self._lines = lines
        # Elements are lines without their "\n" when the text has no "\r", else lines with terminators.
        self._extra = 0 if terminated else 1
        self._index = 0
        self._offset = 0

    def at(self, k: int) -> int:
        if k < self._index:
            self._index, self._offset = 0, 0
        lines = self._lines
        k_clamped = min(k, len(lines))
        self._offset += sum(map(len, lines[self._index : k_clamped])) + self._extra * (k_clamped - self._index)
        self._index = k_clamped
        if k_clamped == len(lines) and self._extra:
            return self._offset - 1  # the last element has no terminator
        return self._offset


class _Last(str):
    """The text's last line (it has no terminator), so it never equals a terminated line with the same text."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Last) and str.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = str.__hash__


def _lines(text: str) -> tuple[list[str], bool]:
    """One element per LSP line, and whether elements carry their terminators. Without \r in the text they
    are the lines without their "\n" (a C-speed split); otherwise each keeps its terminator. The last element
    is marked: it has no terminator."""
    terminated = "\r" in text
    if not terminated:
        lines = text.split("\n")
    else:
        offs = line_starts(text)
        lines = [text[offs[k] : offs[k + 1]] for k in range(len(offs) - 1)]
        lines.append(text[offs[-1] :])
    lines[-1] = _Last(lines[-1])
    return lines, terminated


def _changed_regions(a: list[str], b: list[str]) -> list[tuple[int, int, int, int]]:
    """(i1, i2, j1, j2) spans where a[i1:i2] must become b[j1:j2], in order: the project's one line differ
    (linediff.py, bounded time), whose changes are then trimmed to the characters that really changed."""
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in opcodes(a, b) if tag != "equal"]


def _common_length(x: str, y: str, limit: int, *, from_end: bool) -> int:
    """How many characters ``x`` and ``y`` share at their start (or end), at most ``limit``: slices compared in
    doubling then halving steps at C speed (a 5 MB one-line file took 16 s character by character)."""

    def same(lo: int, hi: int) -> bool:
        if from_end:
            return x[len(x) - hi : len(x) - lo] == y[len(y) - hi : len(y) - lo]
        return x[lo:hi] == y[lo:hi]

    lo, step = 0, 1
    while lo < limit:
        hi = min(lo + step, limit)
        if not same(lo, hi):
            break
        lo, step = hi, step * 2
    else:
        return limit
    while hi - lo > 1:  # the first difference is in [lo, hi)
        mid = (lo + hi) // 2
        if same(lo, mid):
            lo = mid
        else:
            hi = mid
    return lo


def _trimmed(old: str, begin: int, end: int, replacement: str, line: int) -> TextEdit:
    """The edit replacing old[begin:end] (``begin`` starts LSP line ``line``) with ``replacement``, shrunk to
    the characters that differ."""
    removed = old[begin:end]
    limit = min(len(removed), len(replacement))
    prefix = _common_length(removed, replacement, limit, from_end=False)
    # Never cut a \r\n in two: a position between them does not exist in LSP.
    if prefix and removed[prefix - 1] == "\r" and removed[prefix : prefix + 1] == "\n":
        prefix -= 1
    suffix = _common_length(removed, replacement, limit - prefix, from_end=True)
    if suffix:
        cut = begin + len(removed) - suffix
        if old[cut : cut + 1] == "\n" and old[cut - 1 : cut] == "\r":
            suffix -= 1
    start = begin + prefix
    stop = end - suffix
    start_pos = _position(old, line, begin, start)
    end_pos = _position(old, line, begin, stop)
    return {"range": {"start": start_pos, "end": end_pos}, "newText": replacement[prefix : len(replacement) - suffix]}


def _line_begin(text: str, base: int, offset: int) -> int:
    """Start of the line holding ``offset``, given that ``base`` starts a line at or before it."""
    if "\r" not in text[base:offset]:
        return text.rfind("\n", base, offset) + 1 or base
    last = base
    for match in EOL.finditer(text, base, offset):
        last = match.end()
    return last


def _position(text: str, line: int, base: int, offset: int) -> dict[str, int]:
    """The LSP position of ``offset``, given that ``base`` (<= offset) starts LSP line ``line``."""
    segment = text[base:offset]
    if "\r" not in segment:
        line += segment.count("\n")
    else:
        line += sum(1 for _ in EOL.finditer(segment))
    begin = _line_begin(text, base, offset)
    return {"line": line, "character": utf16_len(text[begin:offset])}


def apply_text_edits(text: str, edits: list[Mapping[str, Any]]) -> str:
    """Apply LSP TextEdits (ranges against ``text``), as a client would; used by tests and benches."""
    from agent_lsp.adapters.lsp.documents import offset_at

    starts = line_starts(text)
    spans = []
    for e in edits:
        r = e["range"]
        s = offset_at(text, starts, r["start"]["line"], r["start"]["character"])
        t = offset_at(text, starts, r["end"]["line"], r["end"]["character"])
        spans.append((s, t, e["newText"]))
    out = text
    for s, t, new_text in sorted(spans, key=lambda x: (x[0], x[1]), reverse=True):
        out = out[:s] + new_text + out[t:]
    return out


def change_annotations(label: str, *, needs_confirmation: bool, description: str = "") -> dict[str, Any]:
    note: dict[str, Any] = {"label": label, "needsConfirmation": needs_confirmation}
    if description:
        note["description"] = description
    return {ANNOTATION_ID: note}


def change_edit(
    uri: str,
    version: int | None,
    edits: list[TextEdit],
    *,
    label: str,
    annotate: bool,
    needs_confirmation: bool,
    document_changes: bool = True,
) -> dict[str, Any]:
    """A WorkspaceEdit changing one existing document. ``version`` None: the file is not open in the editor."""
    if not document_changes:
        return {"changes": {uri: edits}}
    if annotate:
        edits = [{**e, "annotationId": ANNOTATION_ID} for e in edits]
    result: dict[str, Any] = {"documentChanges": [{"textDocument": {"uri": uri, "version": version}, "edits": edits}]}
    if annotate:
        result["changeAnnotations"] = change_annotations(label, needs_confirmation=needs_confirmation)
    return result


def create_edit(uri: str, content: str, *, label: str, annotate: bool, needs_confirmation: bool) -> dict[str, Any]:
    """A WorkspaceEdit creating a file (refusing to overwrite one that appeared meanwhile) and filling it."""
    create: dict[str, Any] = {"kind": "create", "uri": uri, "options": {"overwrite": False, "ignoreIfExists": False}}
    insert: TextEdit = {"range": {"start": _ZERO, "end": _ZERO}, "newText": content}
    if annotate:
        create["annotationId"] = ANNOTATION_ID
        insert["annotationId"] = ANNOTATION_ID
    changes: list[dict[str, Any]] = [create]
    if content:
        changes.append({"textDocument": {"uri": uri, "version": None}, "edits": [insert]})
    result: dict[str, Any] = {"documentChanges": changes}
    if annotate:
        result["changeAnnotations"] = change_annotations(label, needs_confirmation=needs_confirmation)
    return result


_ZERO = {"line": 0, "character": 0}
