"""Bench: ACP turn overhead with a zero-delay replay, agent RSS after five prompts, and streamed chunks per second.

Run: ``.venv/bin/python bench/acp_throughput.py [--prompts N] [--chunks N]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from spawning import start_server


def text_turn(*texts: str) -> dict[str, Any]:
    chunks: list[dict[str, Any]] = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": t}]}}]} for t in texts
    ]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    chunks[-1]["usageMetadata"] = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
    return {"method": "generateContentStream", "response": chunks}


class Agent:
    def __init__(self, script: Path, work: Path, *, loop_detection: bool, args: tuple[str, ...] = ()) -> None:
        home = work / "home"
        if not loop_detection:
            (home / ".gemini").mkdir(parents=True)
            (home / ".gemini" / "settings.json").write_text('{"model": {"disableLoopDetection": true}}')
        self.proc = start_server("acp", "--fake-responses", str(script), *args, home=home)
        self.next_id = 0
        self.updates = 0
        self.text: list[str] = []

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.next_id += 1
        rid = self.next_id
        self.proc.stdin.write(
            json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode() + b"\n"
        )
        self.proc.stdin.flush()
        while line := self.proc.stdout.readline():
            message: dict[str, Any] = json.loads(line)
            if message.get("method") == "session/update":
                self.updates += 1
                update = message["params"]["update"]
                if update.get("sessionUpdate") == "agent_message_chunk":
                    self.text.append(update["content"]["text"])
            elif message.get("id") == rid:
                if "error" in message:
                    raise RuntimeError(f"{method} failed: {message['error']}")
                result: dict[str, Any] = message["result"]
                return result
        raise RuntimeError("the agent closed stdout")

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=30, help="prompts timed for the turn overhead")
    parser.add_argument("--chunks", type=int, default=2000, help="chunks in the streaming prompt")
    parser.add_argument("--streams", type=int, default=5, help="streaming prompts timed (the median is printed)")
    parser.add_argument(
        "--no-loop-detection",
        action="store_true",
        help="turn the core's content loop detection off (isolates the adapter's own cost)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        project = work / "project"
        project.mkdir()
        lines = [text_turn("ok") for _ in range(args.prompts + 5)]
        lines += [text_turn(*[f"chunk {i} " for i in range(args.chunks)]) for _ in range(args.streams)]
        script = work / "script.jsonl"
        script.write_text("".join(json.dumps(line) + "\n" for line in lines))
        agent = Agent(script, work, loop_detection=not args.no_loop_detection)
        agent.call("initialize", {"protocolVersion": 1})
        sid = agent.call("session/new", {"cwd": str(project), "mcpServers": []})["sessionId"]

        def prompt(text: str) -> float:
            started = time.perf_counter()
            answer = agent.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]})
            assert answer["stopReason"] == "end_turn", answer
            return (time.perf_counter() - started) * 1000

        for i in range(5):
            prompt(f"warm-up {i}")
        rss = agent.rss_mib()
        overheads = [prompt(f"prompt {i}") for i in range(args.prompts)]

        expected = "".join(f"chunk {i} " for i in range(args.chunks))
        rates: list[float] = []
        messages: list[int] = []
        for i in range(args.streams):
            before = agent.updates
            agent.text.clear()
            started = time.perf_counter()
            prompt(f"stream a lot {i}")
            rates.append(args.chunks / (time.perf_counter() - started))
            messages.append(agent.updates - before)
            if "".join(agent.text) != expected:
                raise SystemExit("streamed text arrived incomplete or out of order")
        agent.close()
    print(
        f"turn overhead (zero-delay replay, one chunk): median {statistics.median(overheads):.1f} ms "
        f"(p90 {sorted(overheads)[int(len(overheads) * 0.9) - 1]:.1f} ms) over {args.prompts} prompts"
    )
    print(f"agent RSS after five prompts: {rss:.1f} MiB")
    detection = "off" if args.no_loop_detection else "on"
    print(
        f"streaming (loop detection {detection}): {args.chunks} chunks delivered in order as "
        f"{statistics.median(messages):.0f} updates: median {statistics.median(rates):.0f} chunks/s "
        f"(best {max(rates):.0f}, worst {min(rates):.0f}, first {rates[0]:.0f}) over {args.streams} prompts"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
