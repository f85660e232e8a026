"""Bench: spawn ``python -m agent_lsp lsp`` → ``initialize`` answered (median of 10 runs, budget 400 ms).

Also spawn → ``agent/newSession`` answered (the panel is ready; goal 150 ms), sent right after ``initialized``:
this one pays for importing pygls + lsprotocol and the runtime.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUDGET_MS = 400.0
RUNS = 10
ROOT = Path(__file__).resolve().parent.parent


def frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_frame(stream: object) -> dict[str, object]:
    length = 0
    while True:
        line = stream.readline()  # type: ignore[attr-defined]
        if not line:
            raise RuntimeError("server closed stdout before answering")
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    message: dict[str, object] = json.loads(stream.read(length))  # type: ignore[attr-defined]
    return message


def once(home: Path) -> tuple[float, float]:
    env = dict(os.environ, HOME=str(home), AGENT_LSP_HOME=str(home / "state"), AGENT_LSP_TRUST_WORKSPACE="true")
    env["GEMINI_API_KEY"] = "bench-key"  # never used: no prompt is sent
    initialize = frame(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {}}}
    )
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_lsp", "lsp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(initialize)
    proc.stdin.flush()
    answer = read_frame(proc.stdout)
    elapsed = (time.perf_counter() - started) * 1000
    assert answer.get("id") == 1 and "capabilities" in answer["result"], answer  # type: ignore[operator]
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    project = home / "project"
    project.mkdir(exist_ok=True)
    proc.stdin.write(frame({"jsonrpc": "2.0", "id": 3, "method": "agent/newSession", "params": {"cwd": str(project)}}))
    proc.stdin.flush()
    while (created := read_frame(proc.stdout)).get("id") != 3:
        pass
    ready = (time.perf_counter() - started) * 1000
    assert "sessionId" in created.get("result", {}), created  # type: ignore[operator]
    proc.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
    proc.stdin.flush()
    # pygls took over and answers after the pre-answered initialize (notifications may come first)
    while "id" not in (shutdown := read_frame(proc.stdout)):
        pass
    assert shutdown.get("id") == 2, shutdown
    proc.wait(timeout=30)
    return elapsed, ready


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        pairs = [once(Path(tmp)) for _ in range(RUNS)]
    times = [a for a, _ in pairs]
    median = statistics.median(times)
    print(
        f"lsp startup (spawn → initialize answered): median {median:.0f} ms over {RUNS} runs "
        f"(min {min(times):.0f}, max {max(times):.0f}); budget {BUDGET_MS:.0f} ms, ratio {median / BUDGET_MS:.2f}"
    )
    ready = statistics.median(b for _, b in pairs)
    print(f"lsp spawn → agent/newSession answered: median {ready:.0f} ms (goal 150 ms, ratio {ready / 150:.2f})")
    return 0 if median <= BUDGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
