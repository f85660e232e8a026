"""Bench: the first answer over ACP through the real google-genai client, against the zero-delay fake Gemini.

Two cases, interleaved run by run (the machine is shared and noisy: read medians and the relation between
the two, not single figures):
- typed: spawn, initialize, session/new, wait a second (a user typing), then prompt → first chunk
  (goal ≤ 20 ms: google-genai is imported and its client built while the user types, GeminiClient.warm);
- at once: spawn, initialize, session/new and the prompt sent back to back → first chunk (goal ≤ 300 ms).
With ``--gemini PATH`` (Gemini CLI 0.61.0's ``gemini`` from ``npm install @google/gemini-cli@0.61.0``), the same
figures for ``gemini --acp`` in the same run, interleaved, and the ratios (scratch HOME: telemetry, update checks
and folder trust off, API-key auth, a fixed model so no routing request precedes the answer).
Run: ``.venv/bin/python bench/acp_first_chunk.py [--runs N] [--pause S] [--gemini PATH]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.fakes, from a checkout

from tests.fakes.fake_gemini import FakeGemini  # noqa: E402

TYPED_GOAL_MS = 20.0
AT_ONCE_GOAL_MS = 300.0
ANSWER = [
    {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hello"}]}}]},
    {"candidates": [{"content": {"role": "model", "parts": [{"text": " there."}]}, "finishReason": "STOP"}]},
]


RSS: dict[str, list[float]] = {}


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def send(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def until(proc: subprocess.Popen[bytes], done: Any) -> dict[str, Any]:
    assert proc.stdout is not None
    while line := proc.stdout.readline():
        message: dict[str, Any] = json.loads(line)
        if done(message):
            return message
    raise RuntimeError("the agent closed stdout early")


def first_chunk(message: dict[str, Any]) -> bool:
    update = (message.get("params") or {}).get("update") or {}
    return message.get("method") == "session/update" and update.get("sessionUpdate") == "agent_message_chunk"


GEMINI_SETTINGS = {
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
    "security": {"folderTrust": {"enabled": False}, "auth": {"selectedType": "gemini-api-key"}},
    "model": {"name": "gemini-2.5-flash"},
}


def once(work: Path, url: str, typed: bool, pause: float = 1.0, gemini: str | None = None) -> tuple[float, float]:
    """(spawn → session/new answered, prompt sent → first chunk) in ms; the second from spawn when not typed."""
    home, project = work / "home", work / "project"
    project.mkdir(parents=True, exist_ok=True)
    env = dict(
        os.environ,
        HOME=str(home),
        AGENT_LSP_HOME=str(home / "state"),
        AGENT_LSP_TRUST_WORKSPACE="true",
        GEMINI_API_KEY="bench-key",
        GOOGLE_GEMINI_BASE_URL=url,
    )
    argv = [sys.executable, "-m", "agent_lsp", "acp"]
    if gemini is not None:
        (home / ".gemini").mkdir(parents=True)
        (home / ".gemini" / "settings.json").write_text(json.dumps(GEMINI_SETTINGS))
        env["GEMINI_CLI_NO_RELAUNCH"] = "true"
        argv = [gemini, "--acp"]
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=project if gemini is not None else ROOT,
    )
    try:
        send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
        new = {"cwd": str(project), "mcpServers": []}
        send(proc, {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": new})
        if not typed:
            until(proc, lambda m: m.get("id") == 1)
            created = until(proc, lambda m: m.get("id") == 2)
            ready = (time.perf_counter() - started) * 1000
        else:
            until(proc, lambda m: m.get("id") == 1)
            created = until(proc, lambda m: m.get("id") == 2)
            ready = (time.perf_counter() - started) * 1000
            time.sleep(pause)
        sid = created["result"]["sessionId"]
        sent = time.perf_counter()
        prompt = [{"type": "text", "text": "hi"}]
        params = {"sessionId": sid, "prompt": prompt}
        send(proc, {"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": params})
        until(proc, first_chunk)
        chunk = (time.perf_counter() - (sent if typed else started)) * 1000
        until(proc, lambda m: m.get("id") == 3)
        if typed:  # four more prompts, then the process's resident memory (google-genai loaded)
            for rid in range(4, 8):
                send(proc, {"jsonrpc": "2.0", "id": rid, "method": "session/prompt", "params": params})
                until(proc, lambda m, rid=rid: m.get("id") == rid)
            RSS.setdefault(gemini or "ours", []).append(_rss_mib(proc.pid))
        return ready, chunk
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pause", type=float, default=1.0, help="seconds the user takes to type (default 1)")
    parser.add_argument("--gemini", help="Gemini CLI's gemini executable, measured in the same run for comparison")
    args = parser.parse_args()
    fake = FakeGemini()
    url = fake.start()
    agents: list[tuple[str, str | None]] = [("agent-lsp", None)]
    if args.gemini:
        agents.append(("Gemini CLI", args.gemini))
    figures: dict[str, dict[str, list[float]]] = {name: {"ready": [], "typed": [], "at_once": []} for name, _ in agents}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs + 1):
            for name, gemini in agents:
                for is_typed in (True, False):
                    fake.push(*([ANSWER] * (5 if is_typed else 1)))
                    r, c = once(Path(tmp) / f"run{i}-{name}-{is_typed}", url, is_typed, args.pause, gemini)
                    if i == 0:
                        continue  # the first run fills the OS file cache and __pycache__
                    figures[name]["typed" if is_typed else "at_once"].append(c)
                    if is_typed:
                        figures[name]["ready"].append(r)
    fake.stop()
    medians = {name: {k: statistics.median(v) for k, v in f.items()} for name, f in figures.items()}
    rss = {name: statistics.median(RSS[gemini or "ours"][1:] or RSS[gemini or "ours"]) for name, gemini in agents}
    goals = {"ready": None, "typed": TYPED_GOAL_MS, "at_once": AT_ONCE_GOAL_MS}
    labels = {
        "ready": "spawn -> session/new answered",
        "typed": f"first prompt after {args.pause:g} s -> first chunk",
        "at_once": "spawn -> first chunk, prompt at once",
    }
    ours = medians["agent-lsp"]
    for key, label in labels.items():
        line = f"{label}: agent-lsp {ours[key]:.1f} ms"
        goal = goals[key]
        if goal is not None:
            line += f" (goal {goal:.0f} ms, ratio {ours[key] / goal:.2f})"
        if "Gemini CLI" in medians:
            theirs = medians["Gemini CLI"][key]
            line += f"; Gemini CLI {theirs:.1f} ms (ours/theirs {ours[key] / theirs:.2f})"
        print(line)
    print("RSS after five prompts: " + ", ".join(f"{name} {value:.1f} MiB" for name, value in rss.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
