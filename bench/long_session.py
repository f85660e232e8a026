"""A long session through the real model client: turn time at prompt 200 vs the floor, and reloading it.

200 prompts of 1.5 KB, each answered with 1.5 KB of text by the zero-delay fake Gemini server (in this
process), through the real runtime and google-genai. After each agent turn, the floor sends the very body
the agent just sent (the same history JSON) to the same fake with the standard library's http.client and
reads the answer: what sending the history costs by itself. The two alternate turn by turn, so machine
noise hits both alike; medians of the first and last ten turns are printed with their ratio. Goal: a turn
at prompt 200 within 2x of the floor. Then ``session/load`` of the recorded 200-prompt session (goal ≤ 1 s).
``--openai`` does the same through the openai SDK against the fake OpenAI-compatible server.
The machine is shared: read ratios, not absolute figures.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.fakes, from a checkout

from tests.fakes.fake_gemini import FakeGemini
from tests.fakes.fake_openai import FakeOpenAI, text_turn

N = int(os.environ.get("BENCH_PROMPTS", "200"))
GOAL_RATIO = 2.0
LOAD_GOAL_MS = 1000.0


def _text(kind: str, i: int) -> str:
    """~1.5 KB of prose that never repeats itself: a repeated run (say ``"a" * 1500``) is a content loop,
    which cuts the stream and ends the turn early, so the bench would time loop handling, not a turn."""
    return f"{kind} {i}: " + " ".join(f"{kind[0]}{i}w{j}" for j in range(1500 // (len(str(i)) + 5)))[:1500]


def _answer(i: int) -> list[dict[str, Any]]:
    return [
        {
            "candidates": [{"content": {"role": "model", "parts": [{"text": _text("answer", i)}]}}],
            "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
        },
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "."}]}, "finishReason": "STOP"}]},
    ]


def _openai_answer(i: int) -> list[Any]:
    return text_turn(_text("answer", i), ".")


async def main(openai: bool) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench-long-"))
    fake: FakeGemini | FakeOpenAI = FakeOpenAI() if openai else FakeGemini()
    url = fake.start()
    env = {"HOME": str(tmp / "home"), "AGENT_LSP_HOME": str(tmp / "state"), "AGENT_LSP_TRUST_WORKSPACE": "true"}
    answer: Callable[[int], Any]
    if isinstance(fake, FakeOpenAI):
        env.update({"OPENAI_BASE_URL": url, "OPENAI_MODEL": "fake-model", "OPENAI_API_KEY": "bench-key"})
        answer, path, auth = _openai_answer, "/v1/chat/completions", ("Authorization", "Bearer bench-key")
    else:
        env.update({"GEMINI_API_KEY": "bench-key", "GOOGLE_GEMINI_BASE_URL": url})
        answer = _answer
        path, auth = "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", ("x-goog-api-key", "bench-key")

    def last_body() -> Any:
        """The body of the request the agent just sent."""
        if isinstance(fake, FakeOpenAI):
            return fake.chat_requests()[-1].body
        return fake.generation_requests()[-1].body

    os.environ.update(env)
    project = tmp / "project"
    project.mkdir()
    (project / "a.txt").write_text("x\n")

    from agent_lsp.core.ports import AutoConfirmer
    from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup

    runtime = Runtime(RuntimeOptions(env=dict(os.environ)))
    handle = await runtime.create_session(SessionSetup(cwd=project, confirmer=AutoConfirmer()))
    session = handle.session
    host, port = url.split("//", 1)[1].split("/", 1)[0].split(":")
    conn = http.client.HTTPConnection(host, int(port))

    def floor(body: Any, i: int) -> float:
        fake.push(answer(i))
        start = time.perf_counter()
        data = json.dumps(body).encode()
        conn.request("POST", path, data, {"Content-Type": "application/json", auth[0]: auth[1]})
        response = conn.getresponse()
        for line in response.read().splitlines():
            if line.startswith(b"data: {"):
                json.loads(line[6:])
        return (time.perf_counter() - start) * 1000

    ours: list[float] = []
    floors: list[float] = []
    for i in range(N):
        fake.push(answer(i))
        start = time.perf_counter()
        async for event in session.send(_text("prompt", i)):
            if event.kind in ("error", "loop_detected"):
                raise SystemExit(f"turn {i} did not end normally: {event}")
        ours.append((time.perf_counter() - start) * 1000)
        floors.append(floor(last_body(), i))
    session_id = session.id
    await handle.aclose()
    conn.close()

    early, late = slice(2, 12), slice(-10, None)
    for label, part in (("prompts 3-12", early), (f"prompts {N - 9}-{N}", late)):
        a, f = statistics.median(ours[part]), statistics.median(floors[part])
        print(f"turn at {label}: agent-lsp {a:.1f} ms, floor {f:.1f} ms, ratio {a / f:.2f}")
    ratio = statistics.median(ours[late]) / statistics.median(floors[late])
    print(f"turn at prompt {N} vs floor: {ratio:.2f}x (goal ≤ {GOAL_RATIO}x)")

    loads = []
    for _ in range(3):
        start = time.perf_counter()
        loaded, events = await runtime.load_session(session_id, SessionSetup(cwd=project, confirmer=AutoConfirmer()))
        loads.append((time.perf_counter() - start) * 1000)
        await loaded.aclose()
    load_ms = statistics.median(loads)
    print(
        f"session/load of a {N}-prompt session ({len(events)} events): {load_ms:.0f} ms "
        f"(goal ≤ {LOAD_GOAL_MS:.0f} ms, ratio {load_ms / LOAD_GOAL_MS:.2f})"
    )
    fake.stop()


if __name__ == "__main__":
    asyncio.run(main("--openai" in sys.argv[1:]))
