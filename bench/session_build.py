"""Bench: in a fresh interpreter, import the runtime, then open a first and a second session (no settings file,
replay model): the import cost a server pays between ``initialize`` and a ready session, without the protocol.

Each run is a new process (imports are what is measured); medians over the runs. ``--compare PYTHON`` runs another
interpreter (e.g. another checkout's ``.venv/bin/python``) run by run in between and prints the paired difference.
Run: ``.venv/bin/python bench/session_build.py [--runs N] [--compare /path/to/other/.venv/bin/python]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ONE_RUN = """
import asyncio, json, pathlib, sys, time
tmp = pathlib.Path(sys.argv[1])
script = tmp / "empty.jsonl"
script.write_text("")
started = time.perf_counter()
from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup
imported = time.perf_counter()


async def main():
    runtime = Runtime(RuntimeOptions(fake_responses=script, warm_model=False))
    setup = SessionSetup(cwd=tmp / "project", confirmer=AutoConfirmer(), record=False)
    times = []
    for _ in range(2):
        t0 = time.perf_counter()
        handle = await runtime.create_session(setup)
        times.append(time.perf_counter() - t0)
        await handle.aclose()
    return times


first, second = asyncio.run(main())
print(json.dumps({"import": (imported - started) * 1000, "first": first * 1000, "second": second * 1000}))
"""

FIGURES = ("import", "first", "second")
LABELS = {"import": "import the runtime", "first": "first session", "second": "second session"}


def once(python: str, work: Path) -> dict[str, float]:
    home = work / "home"
    (work / "project").mkdir(parents=True)
    env = dict(os.environ, HOME=str(home), AGENT_LSP_HOME=str(home / "state"), AGENT_LSP_TRUST_WORKSPACE="true")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled bytecode, as an installed server has
    # cwd outside any checkout: ``-c`` puts the working folder first on sys.path, so each interpreter must
    # import the agent_lsp it has installed, not the one in the folder the bench was started from.
    done = subprocess.run(
        [python, "-c", ONE_RUN, str(work)], capture_output=True, text=True, env=env, cwd=work, check=True
    )
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--compare", help="another interpreter, run by run in between")
    args = parser.parse_args()
    pythons = {"this": sys.executable, **({"other": args.compare} if args.compare else {})}
    results: dict[str, list[dict[str, float]]] = {name: [] for name in pythons}
    with tempfile.TemporaryDirectory() as tmp:
        for name, python in pythons.items():
            once(python, Path(tmp) / f"warm-{name}")  # bytecode written and the file cache filled first
        for i in range(args.runs):
            order = list(pythons) if i % 2 == 0 else list(reversed(pythons))
            for name in order:
                results[name].append(once(pythons[name], Path(tmp) / f"{name}{i}"))
    for name, runs in results.items():
        shown = ", ".join(f"{LABELS[f]} {statistics.median(r[f] for r in runs):.1f} ms" for f in FIGURES)
        print(f"{name} ({pythons[name]}): median of {len(runs)}: {shown}")
    if args.compare:
        for f in FIGURES:
            diffs = [a[f] - b[f] for a, b in zip(results["this"], results["other"], strict=True)]
            print(f"{LABELS[f]}: this - other, paired median {statistics.median(diffs):+.1f} ms")
    try:
        load = os.getloadavg()[0]
        print(f"load average {load:.2f}")
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
