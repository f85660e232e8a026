"""Turns an old/new text pair into minimal LSP TextEdits and wraps them in WorkspaceEdits.

Minimal matters: an editor applies each TextEdit as a separate change, so cursor, marks, folds and undo
history survive everywhere outside the characters that really changed. Pure: plain dicts in LSP shapes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_lsp.adapters.lsp.documents import EOL, line_starts, utf16_len

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


RESYNC_CONFIRM = 2  # equal lines needed after a candidate match before we trust it (blank lines, braces)


def _changed_regions(a: list[str], b: list[str]) -> list[tuple[int, int, int, int]]:
    """(i1, i2, j1, j2) spans where a[i1:i2] must become b[j1:j2], in order.

    Walks both sequences, skipping equal runs with C-speed slice comparisons, and at each difference looks
    for the nearest resynchronisation point in a growing window. Not a minimal diff for moved blocks, but
    always correct (the spans cover every difference) and linear in practice, which a 20k-line file needs.
    """
    regions: list[tuple[int, int, int, int]] = []
    i = j = 0
    n, m = len(a), len(b)
    while i < n and j < m:
        run = _common_run(a, b, i, j)
        i += run
        j += run
        if i >= n or j >= m:
            break
        di, dj = _resync(a, b, i, j)
        regions.append((i, i + di, j, j + dj))
        i += di
        j += dj
    if i < n or j < m:
        regions.append((i, n, j, m))
    return regions


def _common_run(a: list[str], b: list[str], i: int, j: int) -> int:
    """How many lines are equal from a[i] and b[j] on (galloping, then bisecting, on slice equality)."""
    limit = min(len(a) - i, len(b) - j)
    if limit == 0 or a[i] != b[j]:
        return 0
    lo, step = 1, 1
    while lo < limit:
        hi = min(lo + step, limit)
        if a[i + lo : i + hi] != b[j + lo : j + hi]:
            break
        lo = hi
        step *= 2
    else:
        return limit
    hi = min(lo + step, limit)  # a[i+lo:i+hi] holds the first difference
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[i + lo : i + mid] == b[j + lo : j + mid]:
            lo = mid
        else:
            hi = mid
    return lo if a[i + lo] != b[j + lo] else hi


_NEAR = ((0, 1), (1, 0), (0, 2), (1, 1), (2, 0))


def _resync(a: list[str], b: list[str], i: int, j: int) -> tuple[int, int]:
    """The smallest (di, dj) such that a[i+di:] and b[j+dj:] start with equal lines again."""
    n, m = len(a) - i, len(b) - j
    # The usual difference is a line or two inserted, deleted or rewritten: tried first, in the window search's
    # order of preference, so a 50,000-line rewrite does not build a window for each of its 16,000 changes.
    for near_a, near_b in _NEAR:
        if near_a < n and near_b < m and a[i + near_a] == b[j + near_b] and _confirmed(a, b, i + near_a, j + near_b):
            return near_a, near_b
    window = 32
    while True:
        wa, wb = min(window, n), min(window, m)
        first_in_b: dict[str, int] = {}
        for k in range(wb - 1, -1, -1):
            first_in_b[b[j + k]] = k
        best: tuple[int, int] | None = None
        for di in range(wa):
            if best is not None and di >= best[0] + best[1]:
                break
            dj = first_in_b.get(a[i + di])
            if dj is None or (best is not None and di + dj >= best[0] + best[1]):
                continue
            if _confirmed(a, b, i + di, j + dj):
                best = (di, dj)
        if best is not None:
            return best
        if wa >= n and wb >= m:
            return n, m
        window *= 4


def _confirmed(a: list[str], b: list[str], i: int, j: int) -> bool:
    k = RESYNC_CONFIRM
    tail_a, tail_b = a[i : i + k + 1], b[j : j + k + 1]
    if tail_a == tail_b:
        return True
    # Near the end a shorter equal run is all there can be.
    short = min(len(tail_a), len(tail_b))
    return short < k + 1 and tail_a[:short] == tail_b[:short] and len(tail_a) == len(tail_b)


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
