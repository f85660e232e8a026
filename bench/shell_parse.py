"""Shell safety: cost of the bash grammar (tree-sitter-bash) per shell call.

Prints the first-use cost in a fresh interpreter (import tree_sitter + tree_sitter_bash, load the grammar,
first parse; paid once per process, on the first shell call, never at start-up), the median cost of checking
typical command lines, and the worst cases the bounds allow (100,000 bytes; 25,000 syntax nodes).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

from agent_lsp.shellparse import parse_shell
from agent_lsp.shellparse.walk import MAX_COMMAND_BYTES

TYPICAL = [
    "git status",
    "npm test -- --watch=false 2>&1 | tail -n 50",
    "cd src && grep -rn 'TODO' . | head -20; echo done",
    'for f in *.py; do python -m py_compile "$f" || echo "bad: $f"; done',
    'docker run --rm \\\n  -v "$PWD":/src \\\n  -w /src python:3.12 \\\n  python -m pytest -q',
    "cat <<'EOF' > notes.md\n# Notes\n\nSome $text that `stays` as written.\nEOF",
]
FIRST_USE = """
import time
t0 = time.perf_counter()
from agent_lsp.shellparse import parse_shell
t1 = time.perf_counter()
parse_shell("git status && npm test")
t2 = time.perf_counter()
parse_shell("ls -la")
t3 = time.perf_counter()
print(f"{(t1 - t0) * 1000:.2f} {(t2 - t1) * 1000:.2f} {(t3 - t2) * 1000:.3f}")
"""
REFERENCE_MS = 5.0  # the per-turn overhead budget a shell call's check should stay well inside


def median_ms(fn: object, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    first = [
        subprocess.run([sys.executable, "-c", FIRST_USE], capture_output=True, text=True, check=True).stdout.split()
        for _ in range(5)
    ]
    module, first_parse, second = (statistics.median(float(r[i]) for r in first) for i in range(3))
    print(f"import agent_lsp.shellparse with its package (no tree-sitter yet): {module:.2f} ms")
    print(f"first check (imports tree-sitter, loads the bash grammar, parses): {first_parse:.1f} ms")
    print(f"second check in the same process: {second:.3f} ms")
    parse_shell("warm up")
    typical = statistics.median(median_ms(lambda c=c: parse_shell(c), 50) for c in TYPICAL)
    print(f"typical command line (median of {len(TYPICAL)}): {typical:.3f} ms (ratio {typical / REFERENCE_MS:.2f})")
    worst = {
        "100,000-byte word": "echo " + "x" * (MAX_COMMAND_BYTES - 5),
        "24,000-node list": "a;" * 6_000,
        "60,000-byte here-document of text": "cat <<'EOF' > f\n" + "some text line\n" * 4_000 + "EOF",
        "here-document with 7,500 expansions (over the node budget)": "cat <<EOF\n" + "line $x\n" * 7_500 + "EOF",
        "too many nodes (refused at count)": "a;" * 40_000,
        "50,000-deep $(": "$(" * 50_000,
    }
    for name, command in worst.items():
        ms = median_ms(lambda c=command: parse_shell(c), 3)
        print(f"worst case, {name}: {ms:.1f} ms (ok={parse_shell(command).ok})")


if __name__ == "__main__":
    main()
