"""Start-up: spawn `python -m agent_lsp --version` and `agent_lsp run` import cost to first output.

Reports the median wall time of spawning the CLI until it prints (the import chain a protocol server pays
before it can answer), and the import time of agent_lsp.cli measured by -X importtime. No budget of its own:
the protocol start-up budgets (ACP 200 ms, LSP 400 ms to initialize) are measured in bench/acp_startup.py and
bench/lsp_startup.py; this figure is the floor under both.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

RUNS = 10
REFERENCE_MS = 200.0  # the ACP initialize budget, of which this is the floor


def spawn_ms(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], check=True, capture_output=True)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    bare = statistics.median(spawn_ms(["-c", "pass"]) for _ in range(RUNS))
    cli = statistics.median(spawn_ms(["-m", "agent_lsp", "--version"]) for _ in range(RUNS))
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import agent_lsp.cli"], capture_output=True, text=True, check=True
    ).stderr
    total_us = 0
    for line in out.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2].strip() == "agent_lsp.cli":
            total_us = int(parts[1].strip())
    print(f"python -c pass: {bare:.1f} ms")
    print(
        f"agent-lsp --version (spawn to first output): {cli:.1f} ms "
        f"(reference {REFERENCE_MS:.0f} ms, ratio {cli / REFERENCE_MS:.2f})"
    )
    print(f"import agent_lsp.cli (cumulative): {total_us / 1000:.1f} ms")


if __name__ == "__main__":
    main()
