"""Before/after: run start-up, turn-overhead and RSS benches on two checkouts, interleaved run by run, and print
each figure's medians and the ratio (this checkout / the other; below 1 is faster or smaller).

Each side runs its own copy of the bench with ``PYTHONPATH`` set to its root, so one interpreter (this venv's)
serves both and only the code differs. Run when the machine is quiet (``uptime``):
``.venv/bin/python bench/compare_checkouts.py /path/to/base [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
IN_PROCESS = ("turn_overhead.py",)
# bench file, its arguments, and the figures read from its output: (label, pattern of one number).
BENCHES: list[tuple[str, list[str], list[tuple[str, str]]]] = [
    (
        "acp_startup.py",
        ["--runs", "5"],
        [
            ("ACP spawn → initialize (ms)", r"spawn -> initialize answered: median ([\d.]+)"),
            ("ACP spawn → session/new (ms)", r"first session/new answered: median ([\d.]+)"),
        ],
    ),
    (
        "lsp_startup.py",
        ["--runs", "5"],
        [
            ("LSP spawn → initialize (ms)", r"spawn → initialize answered: median ([\d.]+)"),
            ("LSP spawn → agent/newSession (ms)", r"agent/newSession answered: median ([\d.]+)"),
        ],
    ),
    (
        "turn_overhead.py",
        [],
        [
            ("turn overhead, text (ms/turn)", r"text answer: ([\d.]+)"),
            ("turn overhead, read_file round trip (ms/turn)", r"tool round trip: ([\d.]+)"),
            ("turn overhead, edit round trip (ms/turn)", r"edit round trip \(replace, no checkpoint\): ([\d.]+)"),
            ("CPU per turn, text (ms)", r"CPU per turn: text answer ([\d.]+)"),
            ("CPU per turn, read_file round trip (ms)", r"CPU per turn: .*tool round trip ([\d.]+)"),
            ("CPU per turn, edit round trip (ms)", r"CPU per turn: .*edit ([\d.]+)"),
        ],
    ),
    (
        "sessions_rss.py",
        ["--sessions", "10"],
        [
            ("RSS, 1 session (MiB)", r"RSS with 1 session: ([\d.]+)"),
            ("RSS per extra session (MiB)", r"per extra session: ([\d.]+)"),
        ],
    ),
]


def run(root: Path, bench: str, args: list[str]) -> str:
    """A spawning bench runs from its own checkout (``-m agent_lsp`` finds the code by the working folder); an
    in-process one is this checkout's copy, so both sides are measured alike (figures a copy may lack included)."""
    env = dict(os.environ, PYTHONPATH=str(root))
    script = (HERE if bench in IN_PROCESS else root) / "bench" / bench
    done = subprocess.run(
        [sys.executable, str(script), *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    return done.stdout + done.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="the other checkout's root (the 'before')")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sides = {"before": args.other.resolve(), "after": HERE}
    found: dict[tuple[str, str], list[float]] = {}
    for round_ in range(args.rounds):
        for bench, bench_args, figures in BENCHES:
            order = ("before", "after") if round_ % 2 == 0 else ("after", "before")
            for side in order:
                out = run(sides[side], bench, bench_args)
                for label, pattern in figures:
                    match = re.search(pattern, out)
                    if match is None:
                        print(f"{side} {bench}: no '{label}' in its output:\n{out[-800:]}", file=sys.stderr)
                        continue
                    found.setdefault((label, side), []).append(float(match.group(1)))
    print(f"| figure | before ({args.rounds} runs, median) | after | after / before |")
    print("|---|---|---|---|")
    for _bench, _args, figures in BENCHES:
        for label, _pattern in figures:
            before, after = found.get((label, "before")), found.get((label, "after"))
            if not before or not after:
                continue
            b, a = statistics.median(before), statistics.median(after)
            print(f"| {label} | {b:.2f} | {a:.2f} | {a / b:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
