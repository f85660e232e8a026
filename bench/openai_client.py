"""OpenAI client vs Gemini client: first-chunk latency and turn overhead against zero-delay fake servers.

Both clients go through their real SDKs (``openai``, ``google-genai``) over real HTTP on 127.0.0.1 to the fakes in
tests/fakes (which answer at once), so the figures are each client's own cost: request building, SDK, SSE
parsing and our conversion. Printed next to each other with the OpenAI/Gemini ratio; not a test.
Run: ``.venv/bin/python bench/openai_client.py``.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

N = 40
CHUNKS = 20


def gemini_text(n: int) -> list[dict[str, Any]]:
    chunks: list[dict[str, Any]] = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": f"w{i} "}]}}]} for i in range(n)
    ]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    chunks[-1]["usageMetadata"] = {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}
    return chunks


def gemini_call() -> list[dict[str, Any]]:
    part = {"functionCall": {"name": "read_file", "args": {"file_path": "a.txt"}}}
    return [
        {
            "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
        }
    ]


async def first_chunk(client: Any, request: Any) -> tuple[float, float]:
    """(ms to the first text chunk, ms to the end of the stream)."""
    start = time.perf_counter()
    first = 0.0
    async for chunk in client.stream(request):
        if not first and chunk.text:
            first = time.perf_counter() - start
    return first * 1000, (time.perf_counter() - start) * 1000


async def bench_client(name: str, client: Any, push: Any, model: str) -> dict[str, float]:
    from agent_lsp.model.base import Content, GenerateRequest, Part

    request = GenerateRequest(model=model, contents=(Content("user", (Part(text="hi"),)),), system_instruction="s")
    firsts, wholes = [], []
    for i in range(N + 3):
        push("text", CHUNKS)
        f, w = await first_chunk(client, request)
        if i >= 3:  # the first requests pay for imports and connection set-up
            firsts.append(f)
            wholes.append(w)
    return {"first": statistics.median(firsts), "whole": statistics.median(wholes)}


async def bench_session(env: dict[str, str], push: Any, project: Path) -> dict[str, float]:
    from agent_lsp.core.ports import AutoConfirmer
    from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup

    handle = await Runtime(RuntimeOptions(env=env)).create_session(
        SessionSetup(cwd=project, confirmer=AutoConfirmer(), record=False)
    )

    async def timed(prompt: str) -> float:
        start = time.perf_counter()
        async for _ in handle.session.send(prompt):
            pass
        return (time.perf_counter() - start) * 1000

    text, tool = [], []
    for i in range(N):
        push("text", 1)
        text.append(await timed(f"hi {i}"))
    for i in range(N):
        push("call", 0)
        push("text", 1)
        tool.append(await timed(f"read {i}") / 2)
    await handle.aclose()
    return {"text": statistics.median(text[3:]), "tool": statistics.median(tool[3:])}


def acp_startup(env: dict[str, str], project: Path, runs: int = 6) -> tuple[float, float]:
    """Median ms of spawn → initialize answered and spawn → session/new answered (models listed) for ``env``."""
    import json
    import subprocess

    def send(proc: Any, message: dict[str, Any]) -> None:
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()

    def answer(proc: Any, rid: int) -> dict[str, Any]:
        while line := proc.stdout.readline():
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == rid and "method" not in message:
                return message
        raise RuntimeError("the agent closed stdout before answering")

    inits, sessions = [], []
    for _ in range(runs + 1):
        started = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "agent_lsp", "acp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=ROOT,
        )
        send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
        answer(proc, 1)
        inits.append((time.perf_counter() - started) * 1000)
        params = {"cwd": str(project), "mcpServers": []}
        send(proc, {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": params})
        created = answer(proc, 2)
        sessions.append((time.perf_counter() - started) * 1000)
        assert "sessionId" in created.get("result", {}), created
        proc.stdin.close()
        proc.wait(timeout=20)
    return statistics.median(inits[1:]), statistics.median(sessions[1:])


async def main() -> None:
    from agent_lsp.model.auth import AuthConfig
    from agent_lsp.model.gemini import GeminiClient
    from agent_lsp.model.openai_compat import OpenAIClient
    from agent_lsp.model.provider import OpenAIConfig
    from tests.fakes.fake_gemini import FakeGemini
    from tests.fakes.fake_openai import FakeOpenAI, text_turn, tool_turn

    tmp = Path(tempfile.mkdtemp(prefix="bench-openai-"))
    os.environ.update(
        {"HOME": str(tmp / "home"), "AGENT_LSP_HOME": str(tmp / "state"), "AGENT_LSP_TRUST_WORKSPACE": "true"}
    )
    project = tmp / "project"
    project.mkdir()
    (project / "a.txt").write_text("hello\n" * 50)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "OPENAI"))}

    with FakeGemini() as gemini, FakeOpenAI() as fake:

        def push_gemini(kind: str, n: int) -> None:
            gemini.push(gemini_text(n) if kind == "text" else gemini_call())

        def push_openai(kind: str, n: int) -> None:
            words = [f"w{i} " for i in range(n)]
            fake.push(text_turn(*words) if kind == "text" else tool_turn(("read_file", {"file_path": "a.txt"})))

        g_client = GeminiClient(AuthConfig(mode="api_key", api_key="bench", base_url=gemini.url))
        o_client = OpenAIClient(OpenAIConfig(base_url=fake.url, api_key="bench"))
        g = await bench_client("gemini", g_client, push_gemini, "gemini-2.5-flash")
        o = await bench_client("openai", o_client, push_openai, "coder")
        await g_client.aclose()
        await o_client.aclose()
        gs = await bench_session(
            {**base, "GEMINI_API_KEY": "bench", "GOOGLE_GEMINI_BASE_URL": gemini.url}, push_gemini, project
        )
        os_ = await bench_session({**base, "OPENAI_BASE_URL": fake.url, "OPENAI_MODEL": "coder"}, push_openai, project)
        assert not fake.violations, fake.violations
        fake.models = ["coder", "small"]
        g_start = await asyncio.to_thread(
            acp_startup, {**base, "GEMINI_API_KEY": "bench", "GOOGLE_GEMINI_BASE_URL": gemini.url}, project
        )
        o_start = await asyncio.to_thread(
            acp_startup, {**base, "OPENAI_BASE_URL": fake.url, "OPENAI_MODEL": "coder"}, project
        )

    rows = [
        ("first-chunk latency", g["first"], o["first"]),
        (f"whole {CHUNKS}-chunk stream", g["whole"], o["whole"]),
        ("session turn, text answer", gs["text"], os_["text"]),
        ("session turn, tool round trip (per turn)", gs["tool"], os_["tool"]),
        ("acp spawn -> initialize answered", g_start[0], o_start[0]),
        ("acp spawn -> session/new answered", g_start[1], o_start[1]),
    ]
    print(f"{'median of ' + str(N):42} {'gemini ms':>10} {'openai ms':>10} {'openai/gemini':>14}")
    for label, gv, ov in rows:
        print(f"{label:42} {gv:10.2f} {ov:10.2f} {ov / gv:14.2f}")


if __name__ == "__main__":
    asyncio.run(main())
