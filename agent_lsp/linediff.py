"""Line diffs in bounded time: difflib's opcodes and unified text, without its quadratic worst cases.

``difflib.SequenceMatcher`` is near quadratic on a large reordered or rewritten file, and ``ndiff`` compares
changed lines character by character (a 5 MB one-line file never finishes). Here the common head and tail are
cut off (slices compared at C speed), a change of a line or two that the next lines confirm is taken at once (the
usual edit), lines unique to both sides anchor the rest (patience diff: the longest increasing run of them), and
only gaps small enough for a bounded cost go to difflib. A large gap with no anchor becomes one replacement: the diff
is then correct (it applies) but not minimal, and the counts it gives are "about". Imports nothing of ours. The
project's one line differ: tool diffs, headless counts and the LSP TextEdits (adapters/lsp/edits.py) all use it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Literal

Tag = Literal["equal", "replace", "delete", "insert"]
Opcode = tuple[Tag, int, int, int, int]

# A gap whose sides multiply to at most this is left to difflib (whose cost grows about with the product).
SMALL_GAP = 250_000
# Anchoring work allowed per line of input before the remaining gaps are given up as replacements.
WORK_PER_LINE = 16


def _matching_blocks(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int, int]]:
    """Matching runs (i, j, size) in increasing order, as difflib's ``get_matching_blocks`` without the sentinel."""
    blocks: list[tuple[int, int, int]] = []
    budget = WORK_PER_LINE * (len(a) + len(b)) + SMALL_GAP
    stack = [(0, len(a), 0, len(b))]
    while stack:
        alo, ahi, blo, bhi = stack.pop()
        head = _same_run(a, b, alo, blo, min(ahi - alo, bhi - blo), 1)
        if head:
            blocks.append((alo, blo, head))
            alo, blo = alo + head, blo + head
        tail = _same_run(a, b, ahi - 1, bhi - 1, min(ahi - alo, bhi - blo), -1)
        if tail:
            blocks.append((ahi - tail, bhi - tail, tail))
            ahi, bhi = ahi - tail, bhi - tail
        if alo == ahi or blo == bhi:
            continue
        if (ahi - alo) * (bhi - blo) <= SMALL_GAP:
            if set(a[alo:ahi]).isdisjoint(b[blo:bhi]):
                continue  # nothing in common (lines rewritten in place): a replacement, without difflib's setup
            import difflib  # imported here: only a real change needs it

            matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            blocks += [(alo + i, blo + j, n) for i, j, n in matcher.get_matching_blocks() if n]
            continue
        near = _near_resync(a, b, alo, ahi, blo, bhi)
        if near is not None:
            # A line or two inserted, deleted or rewritten, and the sides agree again right after: the usual
            # edit of a large file is settled here, without counting its lines for anchors.
            stack.append((alo + near[0], ahi, blo + near[1], bhi))
            continue
        budget -= (ahi - alo) + (bhi - blo)
        if budget < 0:
            continue  # out of budget: this gap is one replacement
        anchors, shared = _anchors(a, alo, ahi, b, blo, bhi)
        if not anchors:
            continue  # no line unique to both sides: this gap is one replacement
        i0, j0 = alo, blo
        for i, j in [*anchors, (ahi, bhi)]:
            # A gap between anchors can match only if it holds a line both sides have (a rewrite's changed lines
            # do not): most gaps of a rewrite are settled here, without a trip through the stack.
            if i > i0 and j > j0 and not shared.isdisjoint(a[i0:i]):
                stack.append((i0, i, j0, j))
            blocks.append((i, j, 1))
            i0, j0 = i + 1, j + 1
        blocks.pop()  # the end of the range, not an anchor
    blocks.sort()
    merged: list[tuple[int, int, int]] = []
    for i, j, n in blocks:
        if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
            pi, pj, pn = merged[-1]
            merged[-1] = (pi, pj, pn + n)
        else:
            merged.append((i, j, n))
    return merged


_NEAR = ((0, 1), (1, 0), (0, 2), (1, 1), (2, 0))  # (lines of a, lines of b) changed, the likelier first
CONFIRM = 3  # equal lines that must follow a near change before it is taken (one equal blank line is no proof)


def _near_resync(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int) -> tuple[int, int] | None:
    """(di, dj) when a[alo:alo+di] becoming b[blo:blo+dj] makes the sides agree for the next CONFIRM lines."""
    for di, dj in _NEAR:
        i, j = alo + di, blo + dj
        if i + CONFIRM <= ahi and j + CONFIRM <= bhi and a[i : i + CONFIRM] == b[j : j + CONFIRM]:
            return di, dj
    return None


def _same_run(a: Sequence[str], b: Sequence[str], i: int, j: int, limit: int, step: int) -> int:
    """How many lines are equal from a[i] and b[j] on (``step`` 1) or back (``step`` -1), at most ``limit``:
    slices compared in doubling, then halving steps, at C speed (a long equal run costs a few comparisons)."""
    if limit <= 0 or a[i] != b[j]:
        return 0

    def same(lo: int, hi: int) -> bool:  # a[i ± lo .. i ± hi) == b[j ± lo .. j ± hi)
        if step > 0:
            return a[i + lo : i + hi] == b[j + lo : j + hi]
        return a[i - hi + 1 : i - lo + 1] == b[j - hi + 1 : j - lo + 1]

    lo, width = 1, 1
    while lo < limit:
        hi = min(lo + width, limit)
        if not same(lo, hi):
            break
        lo, width = hi, width * 2
    else:
        return limit
    hi = min(lo + width, limit)  # the first difference lies in [lo, hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if same(lo, mid):
            lo = mid
        else:
            hi = mid
    return hi if same(lo, hi) else lo


def _anchors(
    a: Sequence[str], alo: int, ahi: int, b: Sequence[str], blo: int, bhi: int
) -> tuple[list[tuple[int, int]], set[str]]:
    """Lines that occur once in ``a[alo:ahi]`` and once in ``b[blo:bhi]``: the longest run of them in the same
    order on both sides, as (i, j) pairs; and the set of lines both sides hold."""
    # Counted at C speed: this runs on every line of a large gap.
    sa, sb = a[alo:ahi], b[blo:bhi]
    count_a, count_b = Counter(sa), Counter(sb)
    shared = count_a.keys() & count_b.keys()
    once = {line for line in shared if count_a[line] == 1 and count_b[line] == 1}
    where_b = dict(zip(sb, range(blo, bhi), strict=True))
    pairs = [(i, where_b[line]) for i, line in enumerate(sa, alo) if line in once]
    # Longest increasing subsequence of j (patience sorting), with back links to rebuild it.
    tops: list[int] = []
    top_index: list[int] = []
    back: list[int] = []
    for k, (_i, j) in enumerate(pairs):
        pile = bisect_left(tops, j)
        back.append(top_index[pile - 1] if pile else -1)
        if pile == len(tops):
            tops.append(j)
            top_index.append(k)
        else:
            tops[pile] = j
            top_index[pile] = k
    chain: list[tuple[int, int]] = []
    k = top_index[-1] if top_index else -1
    while k >= 0:
        chain.append(pairs[k])
        k = back[k]
    chain.reverse()
    return chain, shared


def opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """How to turn ``a`` into ``b``, in difflib's ``get_opcodes`` shape."""
    out: list[Opcode] = []
    i = j = 0
    for ai, bj, size in [*_matching_blocks(a, b), (len(a), len(b), 0)]:
        if i < ai and j < bj:
            out.append(("replace", i, ai, j, bj))
        elif i < ai:
            out.append(("delete", i, ai, j, bj))
        elif j < bj:
            out.append(("insert", i, ai, j, bj))
        if size:
            out.append(("equal", ai, ai + size, bj, bj + size))
        i, j = ai + size, bj + size
    return out


def changed_counts(a: Sequence[str], b: Sequence[str]) -> tuple[int, int]:
    """(lines added, lines removed) from ``a`` to ``b``."""
    added = removed = 0
    for tag, i1, i2, j1, j2 in opcodes(a, b):
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return added, removed


def _grouped(codes: list[Opcode], n: int) -> Iterator[list[Opcode]]:
    """The changes with ``n`` lines of context, in hunks (difflib's ``get_grouped_opcodes``)."""
    if not codes:
        return
    codes = list(codes)
    tag, i1, i2, j1, j2 = codes[0]
    if tag == "equal":
        codes[0] = (tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2)
    tag, i1, i2, j1, j2 = codes[-1]
    if tag == "equal":
        codes[-1] = (tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n))
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * n:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, stop: int) -> str:
    """A hunk header's range: 1-based start, and the length unless it is 1 (an empty range names the line before)."""
    length = stop - start
    first = start + 1 if length else start
    return str(first) if length == 1 else f"{first},{length}"


def unified(a: Sequence[str], b: Sequence[str], fromfile: str, tofile: str, n: int = 3) -> str:
    """``"".join(difflib.unified_diff(a, b, fromfile, tofile, n=n))`` for lines that keep their line breaks, in
    bounded time."""
    out: list[str] = []
    for group in _grouped(opcodes(a, b), n):
        if not out:
            out += (f"--- {fromfile}\n", f"+++ {tofile}\n")
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in a[i1:i2]]
                continue
            if tag in ("replace", "delete"):
                out += ["-" + line for line in a[i1:i2]]
            if tag in ("replace", "insert"):
                out += ["+" + line for line in b[j1:j2]]
    return "".join(out)


def stat(unified: str) -> tuple[int, int]:
    """(lines added, lines removed) counted from a unified diff's text (its "+"/"-" lines after the headers)."""
    first_hunk = 0 if unified.startswith("@@") else unified.find("\n@@")
    if first_hunk < 0:
        return 0, 0
    body = unified[first_hunk:]
    return body.count("\n+"), body.count("\n-")
