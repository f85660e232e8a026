"""Bench: streamed chunks per second over LSP (``agent/update``), replay model at zero delay, text checked whole
and in order; the twin of ``bench/acp_throughput.py``'s streaming figure (goal ≥ 20,000 chunks/s).

Run: ``.venv/bin/python bench/lsp_throughput.py [--chunks N] [--streams N]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from spawning import start_server

GOAL = 20_000.0


def text_turn(*texts: str) -> dict[str, Any]:
    chunks: list[dict[str, Any]] = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": t}]}}]} for t in texts
    ]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    chunks[-1]["usageMetadata"] = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
    return {"method": "generateContentStream", "response": chunks}


class Editor:
    """A minimal LSP client that draws ``agent/update`` itself (``experimental.agent``)."""

    def __init__(self, script: Path, home: Path) -> None:
        self.proc = start_server("lsp", "--fake-responses", str(script), home=home)
        self.next_id = 0
        self.updates = 0
        self.text: list[str] = []

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _read(self) -> dict[str, Any]:
        stream: IO[bytes] | None = self.proc.stdout
        assert stream is not None
        length = 0
        while True:
            line = stream.readline()
            if not line:
                raise RuntimeError("the server closed stdout")
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        message: dict[str, Any] = json.loads(stream.read(length))
        return message

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        rid = self.next_id
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            message = self._read()
            if message.get("method") == "agent/update":
                self.updates += 1
                update = message["params"]["update"]
                if update.get("sessionUpdate") == "agent_message_chunk":
                    self.text.append(update["content"]["text"])
            elif message.get("id") == rid and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method} failed: {message['error']}")
                result: dict[str, Any] = message["result"]
                return result
            elif "id" in message and "method" in message:  # a request from the server: answer it empty
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})

    def close(self) -> None:
        self.call("shutdown", {})
        self.notify("exit", {})
        self.proc.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=2000, help="chunks in each streaming prompt")
    parser.add_argument("--streams", type=int, default=5, help="streaming prompts timed (the median is printed)")
    args = parser.parse_args()
    expected = "".join(f"chunk {i} " for i in range(args.chunks))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        project = work / "project"
        project.mkdir()
        lines = [text_turn("ok") for _ in range(3)]
        lines += [text_turn(*[f"chunk {i} " for i in range(args.chunks)]) for _ in range(args.streams)]
        script = work / "script.jsonl"
        script.write_text("".join(json.dumps(line) + "\n" for line in lines))
        editor = Editor(script, work / "home")
        capabilities: dict[str, Any] = {"experimental": {"agent": {}}}
        editor.call("initialize", {"processId": None, "rootUri": project.as_uri(), "capabilities": capabilities})
        editor.notify("initialized", {})
        sid = editor.call("agent/newSession", {"cwd": str(project)})["sessionId"]
        for i in range(3):
            editor.call("agent/prompt", {"sessionId": sid, "prompt": f"warm-up {i}"})
        rates: list[float] = []
        messages: list[int] = []
        for i in range(args.streams):
            before = editor.updates
            editor.text.clear()
            started = time.perf_counter()
            answer = editor.call("agent/prompt", {"sessionId": sid, "prompt": f"stream a lot {i}"})
            rates.append(args.chunks / (time.perf_counter() - started))
            assert answer["stopReason"] == "end_turn", answer
            messages.append(editor.updates - before)
            if "".join(editor.text) != expected:
                raise SystemExit("streamed text arrived incomplete or out of order")
        editor.close()
    median = statistics.median(rates)
    print(
        f"LSP streaming: {args.chunks} chunks delivered in order as {statistics.median(messages):.0f} agent/update "
        f"messages: median {median:.0f} chunks/s (best {max(rates):.0f}, worst {min(rates):.0f}) over "
        f"{args.streams} prompts (first {rates[0]:.0f}); goal {GOAL:.0f}/s, ratio {median / GOAL:.2f} (≥ 1 meets it)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
