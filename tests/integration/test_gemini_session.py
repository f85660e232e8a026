"""A whole session through the runtime and the real google-genai client against the fake Gemini server."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from agent_lsp import events as ev
from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.core.retry import RetryPolicy
from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup
from tests.fakes.fake_gemini import FakeGemini


def chunk(*parts: dict[str, Any], finish: str | None = None, tokens: int = 50) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}}
    out: dict[str, Any] = {"candidates": [cand]}
    if finish:
        cand["finishReason"] = finish
        out["usageMetadata"] = {"promptTokenCount": tokens, "candidatesTokenCount": 5, "totalTokenCount": tokens + 5}
    return out


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.txt").write_text("alpha\nbeta\n")
    monkeypatch.setenv("AGENT_LSP_TRUST_WORKSPACE", "true")
    return root


def runtime_for(fake: FakeGemini, **settings: Any) -> Runtime:
    import os

    env = {**os.environ, "GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}
    fast = RetryPolicy(initial_delay_s=0.05, max_delay_s=0.1)
    return Runtime(RuntimeOptions(env=env, retry=fast, **settings))


async def run(runtime: Runtime, project: Path, prompt: str) -> tuple[list[ev.AgentEvent], Any]:
    handle = await runtime.create_session(SessionSetup(cwd=project, confirmer=AutoConfirmer(), record=False))
    events = [e async for e in handle.session.send(prompt)]
    await handle.aclose()
    return events, handle


async def test_tool_round_trip_with_a_stream_cut_midway(fake: FakeGemini, project: Path) -> None:
    call = {"functionCall": {"name": "read_file", "args": {"file_path": "notes.txt"}}}
    fake.push(
        {
            "chunks": [chunk({"text": "Let me "}), chunk({"text": "look"}), chunk({"text": " never sent"})],
            "cut_after": 2,
        },
        [chunk({"text": "Let me look."}), chunk(call, finish="STOP")],
        [chunk({"text": "It says alpha and beta."}, finish="STOP", tokens=80)],
    )
    events, _ = await run(runtime_for(fake), project, "what is in notes.txt?")
    kinds = [e.kind for e in events]
    assert "retry" in kinds
    assert kinds.index("retry") > kinds.index("content")  # partial output came first, then was voided
    response = next(e for e in events if isinstance(e, ev.ToolCallResponse))
    assert response.name == "read_file" and response.status == "success"
    assert isinstance(events[-1], ev.Stop) and events[-1].reason == "end_turn"
    bodies = [r.body for r in fake.generation_requests()]
    assert len(bodies) == 3
    last_user = bodies[2]["contents"][-1]
    fr = last_user["parts"][0]["functionResponse"]
    assert fr["name"] == "read_file" and "alpha" in fr["response"]["output"]
    # The voided partial text never reached the history that was sent back.
    sent_model_text = "".join(p.get("text", "") for p in bodies[2]["contents"][1]["parts"])
    assert "never sent" not in sent_model_text


async def test_retry_after_is_honoured_end_to_end(fake: FakeGemini, project: Path) -> None:
    fake.push({"status": 429, "retry_after": 1.0}, [chunk({"text": "fine"}, finish="STOP")])
    started = time.perf_counter()
    events, _ = await run(runtime_for(fake), project, "hello")
    elapsed = time.perf_counter() - started
    retry = next(e for e in events if isinstance(e, ev.Retry))
    assert retry.delay_s == pytest.approx(1.0)
    assert elapsed >= 0.95
    assert isinstance(events[-1], ev.Stop) and events[-1].reason == "end_turn"


async def test_persistent_quota_errors_fall_back_to_flash(fake: FakeGemini, project: Path) -> None:
    fake.push({"status": 429}, {"status": 429}, [chunk({"text": "from flash"}, finish="STOP")])
    events, handle = await run(runtime_for(fake, model="gemini-2.5-pro"), project, "hello")
    fallback = next(e for e in events if isinstance(e, ev.ModelFallback))
    assert (fallback.from_model, fallback.to_model) == ("gemini-2.5-pro", "gemini-2.5-flash")
    assert "gemini-2.5-flash" in fake.generation_requests()[-1].path
    assert handle.session.model == "gemini-2.5-flash"


async def test_bad_request_ends_the_turn_with_a_readable_error(fake: FakeGemini, project: Path) -> None:
    fake.push({"status": 400, "message": "Invalid JSON payload received."})
    events, handle = await run(runtime_for(fake), project, "hello")
    error = next(e for e in events if isinstance(e, ev.Error))
    assert "Invalid JSON payload" in error.message and "{" not in error.message
    assert len(fake.generation_requests()) == 1
    assert handle.session.history.contents() == ()


async def test_key_in_user_dotenv_is_found(fake: FakeGemini, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Gemini CLI users often keep GEMINI_API_KEY in ~/.gemini/.env: it must work here too."""
    import os

    home = Path(os.environ["HOME"])
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / ".env").write_text("GEMINI_API_KEY=from-dotenv\n")
    env = {k: v for k, v in os.environ.items() if k != "GEMINI_API_KEY"}
    env["GOOGLE_GEMINI_BASE_URL"] = fake.url
    runtime = Runtime(RuntimeOptions(env=env))
    assert runtime.check_auth(project) is None
    fake.push([chunk({"text": "hi"}, finish="STOP")])
    handle = await runtime.create_session(SessionSetup(cwd=project, confirmer=AutoConfirmer(), record=False))
    events = [e async for e in handle.session.send("hello")]
    await handle.aclose()
    assert isinstance(events[-1], ev.Stop) and events[-1].reason == "end_turn"
    assert fake.generation_requests()[0].api_key == "from-dotenv"
    assert "GEMINI_API_KEY" not in os.environ  # loaded for the model only, not leaked into the process


async def test_slash_commands_work_with_content_blocks(project: Path, tmp_path: Path) -> None:
    from agent_lsp.model.base import Part

    script = tmp_path / "s.jsonl"
    script.write_text("")
    runtime = Runtime(RuntimeOptions(fake_responses=script))
    handle = await runtime.create_session(SessionSetup(cwd=project, confirmer=AutoConfirmer(), record=False))
    events = [e async for e in handle.session.send([Part(text="/help")])]
    await handle.aclose()
    assert any(isinstance(e, ev.Content) and "/compress" in e.text for e in events)


async def test_first_prompt_waits_for_mcp_servers_still_starting(
    fake: FakeGemini, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Editors' sessions connect MCP servers in the background; the first prompt waits for them, saying so."""
    import json
    import sys

    server = Path(__file__).parent.parent / "mcp" / "servers" / "echo_server.py"
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    spec = {"command": sys.executable, "args": [str(server), "--name", "calc"], "trust": True}
    (home / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": {"calc": spec}}))
    monkeypatch.setenv("HOME", str(home))
    call = {"functionCall": {"name": "mcp_calc_add", "args": {"a": 1, "b": 2}}}
    fake.push(
        [{"candidates": [{"content": {"role": "model", "parts": [call]}, "finishReason": "STOP"}]}],
        [{"candidates": [{"content": {"role": "model", "parts": [{"text": "3"}]}, "finishReason": "STOP"}]}],
    )
    runtime = runtime_for(fake)
    runtime.options.env = {**runtime.options.env, "HOME": str(home)}
    events, _handle = await run(runtime, project, "add")
    notices = [e.message for e in events if isinstance(e, ev.Notice)]
    assert notices[0] == "Waiting for MCP server(s) to start: calc"
    assert notices[1].startswith("MCP server(s) ready: calc (")
    first = fake.generation_requests()[0]
    assert "mcp_calc_add" in [d["name"] for t in first.body["tools"] for d in t.get("functionDeclarations", [])]
    responses = [e for e in events if isinstance(e, ev.ToolCallResponse)]
    assert responses[0].status == "success"


async def test_web_fetch_asks_the_api_with_url_context_and_skips_private_hosts(fake: FakeGemini, project: Path) -> None:
    """As Gemini CLI 0.61: public URLs go to the Gemini API's URL context tool; private hosts are skipped."""
    prompt = "Summarise https://93.184.216.34/page and http://127.0.0.1:9/secret"
    call = {"functionCall": {"name": "web_fetch", "args": {"prompt": prompt}}}
    grounding = {"groundingChunks": [{"web": {"uri": "https://93.184.216.34/page", "title": "The page"}}]}
    fake.push(
        [{"candidates": [{"content": {"role": "model", "parts": [call]}, "finishReason": "STOP"}]}],
        {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": "It is about examples."}]},
                    "finishReason": "STOP",
                    "groundingMetadata": grounding,
                }
            ]
        },
        [{"candidates": [{"content": {"role": "model", "parts": [{"text": "Done."}]}, "finishReason": "STOP"}]}],
    )
    events, _handle = await run(runtime_for(fake, approval_mode="yolo"), project, "fetch")
    fetch_request = fake.generation_requests()[1]
    assert fetch_request.action == "generateContent"
    assert fetch_request.body["tools"] == [{"urlContext": {}}]
    text = fetch_request.body["contents"][0]["parts"][0]["text"]
    assert "<authorized_urls>\nhttps://93.184.216.34/page\n</authorized_urls>" in text
    answer = fake.generation_requests()[2].body["contents"][-1]["parts"][0]["functionResponse"]["response"]
    output = answer["output"]
    assert output.startswith(
        "<untrusted_context>\n[Warning] The following URLs were skipped:\n[Blocked Host] http://127.0.0.1:9/secret"
    )
    assert "It is about examples.\n\nSources:\n[1] The page (https://93.184.216.34/page)" in output
    assert any(isinstance(e, ev.Stop) and e.reason == "end_turn" for e in events)
