"""Bench: spawn ``python -m agent_lsp acp`` → ``initialize`` answered (median of 10 runs, budget 200 ms).

Also reports spawn → first ``session/new`` answered, which pays for the heavy imports warmed after initialize.
Run: ``.venv/bin/python bench/acp_startup.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from spawning import start_server

BUDGET_MS = 200.0


def send(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def answer(proc: subprocess.Popen[bytes], rid: int) -> dict[str, Any]:
    assert proc.stdout is not None
    while line := proc.stdout.readline():
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == rid and "method" not in message:
            return message
    raise RuntimeError("the agent closed stdout before answering")


def once(work: Path) -> tuple[float, float]:
    home, project = work / "home", work / "project"
    project.mkdir(parents=True, exist_ok=True)
    script = work / "empty.jsonl"
    script.write_text("")
    started = time.perf_counter()
    proc = start_server("acp", "--fake-responses", str(script), home=home)
    send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
    init = answer(proc, 1)
    to_init = (time.perf_counter() - started) * 1000
    assert init["result"]["protocolVersion"] == 1, init
    send(proc, {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": str(project), "mcpServers": []}})
    created = answer(proc, 2)
    to_session = (time.perf_counter() - started) * 1000
    assert "sessionId" in created["result"], created
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(timeout=20)
    return to_init, to_session


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    inits: list[float] = []
    sessions: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        once(Path(tmp) / "warm")  # fill the OS file cache and __pycache__ first
        for i in range(args.runs):
            work = Path(tmp) / f"run{i}"
            work.mkdir()
            a, b = once(work)
            inits.append(a)
            sessions.append(b)
    median = statistics.median(inits)
    print(f"spawn -> initialize answered: median {median:.1f} ms (min {min(inits):.1f}, max {max(inits):.1f})")
    print(f"spawn -> first session/new answered: median {statistics.median(sessions):.1f} ms")
    print(f"budget {BUDGET_MS:.0f} ms: {'OK' if median <= BUDGET_MS else 'OVER'}")
    return 0 if median <= BUDGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
