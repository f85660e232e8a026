"""linediff: the same opcodes and unified text as difflib on ordinary edits, always a correct diff, and bounded
time on the inputs that make difflib quadratic (a reordered or rewritten large file, a 5 MB line)."""

from __future__ import annotations

import difflib
import random

import pytest

from agent_lsp import linediff


def _apply(a: list[str], b: list[str], codes: list[linediff.Opcode]) -> list[str]:
    """Rebuild ``b`` from ``a`` and the opcodes, checking that the opcodes tile both sides in order."""
    out: list[str] = []
    i = j = 0
    for tag, i1, i2, j1, j2 in codes:
        assert (i1, j1) == (i, j)
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
            out += a[i1:i2]
        else:
            out += b[j1:j2]
        i, j = i2, j2
    assert (i, j) == (len(a), len(b))
    return out


def _edited(rng: random.Random, lines: list[str]) -> list[str]:
    out = list(lines)
    for _ in range(rng.randint(0, 6)):
        k = rng.randrange(len(out) + 1)
        choice = rng.random()
        if choice < 0.4:
            out.insert(k, f"new {rng.randint(0, 9)}\n")
        elif choice < 0.7 and out:
            del out[min(k, len(out) - 1)]
        elif out:
            out[min(k, len(out) - 1)] = "}\n"
    return out


@pytest.mark.parametrize("seed", range(40))
def test_ordinary_edits_match_difflib(seed: int) -> None:
    rng = random.Random(seed)
    a = [rng.choice(["}\n", "\n", f"x = {rng.randint(0, 50)}\n", "pass\n"]) for _ in range(rng.randint(0, 60))]
    b = _edited(rng, a)
    assert _apply(a, b, linediff.opcodes(a, b)) == b
    expected = "".join(difflib.unified_diff(a, b, "a/f", "b/f"))
    got = linediff.unified(a, b, "a/f", "b/f")
    # Mostly the very same text; where difflib's choice differs (a tie, or its greedy longest match), never
    # more changed lines than difflib's.
    assert sum(linediff.stat(got)) <= sum(linediff.stat(expected))


@pytest.mark.parametrize("seed", range(5))
def test_scattered_edits_in_a_large_file_are_no_worse_than_difflib(seed: int) -> None:
    # 3,000 lines: past the size difflib gets directly, so the anchors and the gaps between them are exercised.
    rng = random.Random(seed)
    a = [
        rng.choice(["}\n", "\n", "pass\n"]) if rng.random() < 0.3 else f"x{rng.randint(0, 5000)}\n" for _ in range(3000)
    ]
    b = list(a)
    for _ in range(30):
        b = _edited(rng, b)
    assert _apply(a, b, linediff.opcodes(a, b)) == b
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    theirs = sum(i2 - i1 + j2 - j1 for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal")
    assert sum(linediff.changed_counts(a, b)) <= theirs


def test_a_small_edit_gives_difflibs_exact_text() -> None:
    a = [f"line {k}\n" for k in range(30)]
    b = [*a[:10], "inserted\n", *a[10:20], *a[21:]]
    assert linediff.unified(a, b, "x", "y") == "".join(difflib.unified_diff(a, b, "x", "y"))
    assert linediff.changed_counts(a, b) == (1, 1)
    assert linediff.unified(a, a, "x", "y") == ""


def test_a_reordered_large_file_is_diffed_correctly_in_bounded_time() -> None:
    # difflib takes minutes on this (quadratic); a hang fails the test through the suite's timeout.
    rng = random.Random(3)
    a = [f"line {k}\n" for k in range(20_000)]
    b = list(a)
    rng.shuffle(b)
    assert _apply(a, b, linediff.opcodes(a, b)) == b
    added, removed = linediff.changed_counts(a, b)
    assert added == removed and 0 < added <= 20_000


def test_repeated_lines_and_a_big_rewrite_stay_correct() -> None:
    a = ["}\n", "\n"] * 30_000
    b = ["\n", "}\n", "x\n"] * 20_000
    assert _apply(a, b, linediff.opcodes(a, b)) == b
    old = [f"value {k}\n" for k in range(50_000)]
    new = [f"value {k} # changed\n" if k % 3 else line for k, line in enumerate(old)]
    assert linediff.changed_counts(old, new) == (33_333, 33_333)


def test_a_five_megabyte_line_is_one_replacement() -> None:
    old = ["a" * 5_000_000 + "\n"]
    new = ["a" * 2_500_000 + "b" + "a" * 2_499_999 + "\n"]
    assert linediff.opcodes(old, new) == [("replace", 0, 1, 0, 1)]
    assert linediff.stat(linediff.unified(old, new, "x", "y")) == (1, 1)
