"""The fake server itself: script formats, the standalone CLI, and its control endpoints."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from agent_lsp.errors import ModelError
from agent_lsp.model.auth import AuthConfig
from agent_lsp.model.gemini import GeminiClient
from agent_lsp.model.replay import ReplayModel
from tests.fakes.fake_gemini import FakeGemini, load_script, merge_chunks
from tests.model.helpers import TEST_KEY, make_request, text_chunk, text_stream

ROOT = Path(__file__).resolve().parents[2]


def write_cli_jsonl(path: Path) -> None:
    lines = [
        {"method": "generateContentStream", "response": text_stream("Hi ", "there")},
        {"method": "countTokens", "response": {"totalTokens": 9}},
        {"method": "generateContent", "response": text_chunk("A title", finishReason="STOP")},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")


async def test_gemini_cli_fake_responses_play_through_the_sdk(tmp_path: Path) -> None:
    script = tmp_path / "responses.jsonl"
    write_cli_jsonl(script)
    # The same file must mean the same thing to the in-process replay model and to the server.
    replay = ReplayModel.from_file(script)
    replay_text = "".join([c.text async for c in replay.stream(make_request())])
    with FakeGemini() as fake:
        fake.load(script)
        gemini = GeminiClient(AuthConfig(mode="api_key", api_key=TEST_KEY, base_url=fake.url))
        try:
            streamed = "".join([c.text async for c in gemini.stream(make_request())])
            tokens = await gemini.count_tokens(make_request())
            title = (await gemini.generate(make_request())).text
        finally:
            await gemini.aclose()
    assert streamed == replay_text == "Hi there"
    assert (tokens, title) == (9, "A title")


async def test_method_mismatch_is_a_clear_non_retryable_error(tmp_path: Path) -> None:
    script = tmp_path / "responses.jsonl"
    write_cli_jsonl(script)
    with FakeGemini() as fake:
        fake.load(script)
        gemini = GeminiClient(AuthConfig(mode="api_key", api_key=TEST_KEY, base_url=fake.url))
        try:
            with pytest.raises(ModelError) as info:
                await gemini.generate(make_request())
        finally:
            await gemini.aclose()
    assert info.value.status == 400 and not info.value.retryable
    assert "next scripted entry is for streamGenerateContent, but the client called generateContent" in str(info.value)
    assert fake.remaining == 3


def test_load_script_accepts_a_json_list(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    entries = [text_stream("x"), {"status": 500}, {"chunks": text_stream("y"), "cut_after": 1}]
    path.write_text(json.dumps(entries), encoding="utf-8")
    assert load_script(path) == entries


def test_merge_chunks_joins_parts_and_keeps_last_metadata() -> None:
    merged = merge_chunks(
        [text_chunk("a"), {**text_chunk("b", finishReason="STOP"), "usageMetadata": {"totalTokenCount": 3}}]
    )
    assert merged["candidates"][0]["content"]["parts"] == [{"text": "a"}, {"text": "b"}]
    assert merged["candidates"][0]["finishReason"] == "STOP"
    assert merged["usageMetadata"] == {"totalTokenCount": 3}


def test_standalone_server_prints_url_and_serves(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"status": 429, "retry_info": "4s"}]), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.fake_gemini", "--script", str(script), "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        with httpx.Client(base_url=url, timeout=10) as http:
            error = http.post(
                "/v1beta/models/gemini-2.5-pro:generateContent",
                json={"contents": []},
                headers={"x-goog-api-key": TEST_KEY},
            )
            assert error.status_code == 429
            detail = error.json()["error"]
            assert detail["status"] == "RESOURCE_EXHAUSTED"
            assert detail["details"][0] == {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "4s"}
            assert http.post("/_fake/script", json=[text_stream("pushed")]).json() == {"remaining": 1}
            streamed = http.post(
                "/v1beta/models/gemini-2.5-flash:streamGenerateContent", params={"alt": "sse"}, json={"contents": []}
            )
            assert streamed.headers["content-type"] == "text/event-stream"
            events = [json.loads(line[len("data: ") :]) for line in streamed.text.split("\r\n\r\n") if line]
            assert events == text_stream("pushed")
            recorded = http.get("/_fake/requests").json()
        assert [r["model"] for r in recorded] == ["gemini-2.5-pro", "gemini-2.5-flash"]
        assert recorded[0]["headers"]["x-goog-api-key"] == "<redacted>"
        assert TEST_KEY not in json.dumps(recorded)
    finally:
        proc.terminate()
        _out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
