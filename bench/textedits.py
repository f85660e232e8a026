"""Bench: a 20k-line file with scattered changes turned into minimal LSP TextEdits (budget 30 ms), and a 50k-line
rewrite (two lines in three changed, bench/scale.py's shape) turned into TextEdits (budget 2 s, the rewrite's)."""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale import rewrite_texts  # the same rewrite as the ACP and headless figures

from agent_lsp.adapters.lsp.edits import apply_text_edits, text_edits

BUDGET_MS = 30.0
REWRITE_BUDGET_MS = 2000.0
REWRITE_LINES = 50_000
LINES = 20_000
CHANGES = 40


def make_texts(seed: int = 7) -> tuple[str, str]:
    rng = random.Random(seed)
    lines = []
    for i in range(LINES):
        if i % 25 == 0:
            lines.append("")
        elif i % 25 == 24:
            lines.append("    }")
        else:
            lines.append(f"    value_{i} = compute(value_{i - 1}, {rng.randint(0, 999)})  # step {i}")
    old = "\n".join(lines) + "\n"
    new_lines = list(lines)
    for n in sorted(rng.sample(range(LINES), CHANGES), reverse=True):
        kind = n % 3
        if kind == 0:
            new_lines[n] = new_lines[n].replace("compute", "compute_fast")
        elif kind == 1:
            new_lines.insert(n, f"    extra_{n} = 'inserted ✓ line'")
        else:
            del new_lines[n]
    return old, "\n".join(new_lines) + "\n"


def bench_rewrite() -> bool:
    old, new = rewrite_texts(REWRITE_LINES)
    times = []
    edits = []
    for _ in range(3):
        t0 = time.perf_counter()
        edits = text_edits(old, new)
        times.append((time.perf_counter() - t0) * 1000)
    assert apply_text_edits(old, edits) == new, "edits do not reproduce the new text"
    changed = sum(len(e["newText"]) for e in edits)
    median = statistics.median(times)
    print(
        f"textedits: {REWRITE_LINES} lines rewritten (2 in 3 changed) -> {len(edits)} edits "
        f"({changed} inserted chars); median {median:.0f} ms, budget {REWRITE_BUDGET_MS:.0f} ms, "
        f"ratio {median / REWRITE_BUDGET_MS:.2f}"
    )
    return median <= REWRITE_BUDGET_MS


def main() -> int:
    old, new = make_texts()
    times = []
    edits = []
    for _ in range(7):
        t0 = time.perf_counter()
        edits = text_edits(old, new)
        times.append((time.perf_counter() - t0) * 1000)
    assert apply_text_edits(old, edits) == new, "edits do not reproduce the new text"
    changed = sum(len(e["newText"]) for e in edits)
    median = statistics.median(times)
    print(
        f"textedits: {LINES} lines, {CHANGES} scattered changes -> {len(edits)} edits "
        f"({changed} inserted chars); median {median:.1f} ms, budget {BUDGET_MS:.0f} ms, "
        f"ratio {median / BUDGET_MS:.2f}"
    )
    rewrite_ok = bench_rewrite()
    return 0 if median <= BUDGET_MS and rewrite_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
