"""Usage and cost count every model call made for a session: a real LSP server subprocess against the fake Gemini
API (real google-genai client) runs a compression, a subagent and a web search (whose tool asks the model itself),
and the last ``usage_update`` totals exactly the usage of the requests the fake server answered, by model."""

from __future__ import annotations

from typing import Any

from agent_lsp.model.prices import price_of, request_cost
from tests.fakes.fake_gemini import FakeGemini


def _response(parts: list[dict[str, Any]], prompt: int, output: int) -> dict[str, Any]:
    usage = {"promptTokenCount": prompt, "candidatesTokenCount": output, "totalTokenCount": prompt + output}
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
        "usageMetadata": usage,
    }


def _call(name: str, args: dict[str, Any], prompt: int, output: int) -> dict[str, Any]:
    return _response([{"functionCall": {"name": name, "args": args, "id": f"call-{name}"}}], prompt, output)


REPORT = {"SummaryOfFindings": "main() returns 42.", "ExplorationTrace": ["read app.py"], "RelevantLocations": []}
SCRIPT = [
    # Prompt 1: one answer whose prompt fills more than half the window, so prompt 2 starts with a compression.
    _response([{"text": "Read it."}], 1_000_000, 7),
    # Prompt 2: the compression (generateContent), then the main loop delegates to codebase_investigator.
    _response([{"text": "<state_snapshot>the user asked about app.py</state_snapshot>"}], 3_000, 40),
    _call("invoke_agent", {"agent_name": "codebase_investigator", "prompt": "What does main return?"}, 120, 9),
    _call("read_file", {"file_path": "app.py"}, 900, 11),
    _call("complete_task", {"report": REPORT}, 1_100, 60),
    # Then a web search: the tool asks the model itself (generateContent with the search tool).
    _call("google_web_search", {"query": "what is 42"}, 500, 8),
    _response([{"text": "42 is the answer."}], 70, 30),
    _response([{"text": "It returns 42."}], 400, 6),
]


async def test_the_session_total_is_every_request_the_server_answered(launch: Any) -> None:
    with FakeGemini() as fake:
        fake.push(*SCRIPT)
        env = {"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}
        editor = await launch([], replay=False, extra_env=env)
        (editor.project / "app.py").write_text("def main():\n    return 42\n")
        sid = (await editor.request("agent/newSession", {"cwd": str(editor.project)}))["sessionId"]
        # A long first prompt: compression summarises the old 70% of the history, which must end before prompt 2.
        for text in ("read app.py " + "and mind every detail " * 30, "what does main return?"):
            answer = await editor.request("agent/prompt", {"sessionId": sid, "prompt": text})
            assert answer["stopReason"] == "end_turn"
        served = fake.generation_requests()
        await editor.request("agent/prompt", {"sessionId": sid, "prompt": "/stats"})  # no model call
        stats = editor.messages()
    assert fake.remaining == 0 and len(served) == len(SCRIPT)
    kinds = [u["update"].get("sessionUpdate") for u in editor.updates]
    assert "compaction_update" in kinds or any(
        "compressed" in str(u["update"].get("content", "")) for u in editor.updates
    ), "no compression was shown"

    # What the server saw, priced by the model each request named.
    expected: dict[str, dict[str, float]] = {}
    for request, entry in zip(served, SCRIPT, strict=True):
        model = (request.model or "").removeprefix("models/")
        usage = entry["usageMetadata"]
        row = expected.setdefault(model, {"requests": 0, "input": 0, "output": 0, "cost": 0.0})
        row["requests"] += 1
        row["input"] += usage["promptTokenCount"]
        row["output"] += usage["candidatesTokenCount"]
        price = price_of(model)
        assert price is not None, model
        row["cost"] += request_cost(price, usage["promptTokenCount"], usage["candidatesTokenCount"])

    usage_updates = [u["update"] for u in editor.updates if u["update"]["sessionUpdate"] == "usage_update"]
    last = usage_updates[-1]
    session = last["_meta"]["agent-lsp"]["session"]
    assert session["requests"] == len(served)
    assert session["inputTokens"] == sum(r["input"] for r in expected.values())
    assert session["outputTokens"] == sum(r["output"] for r in expected.values())
    by_model = {m["model"]: m for m in session["byModel"]}
    assert set(by_model) == set(expected)
    for model, row in expected.items():
        assert by_model[model]["requests"] == row["requests"]
        assert by_model[model]["inputTokens"] == row["input"]
        assert by_model[model]["cost"] == round(row["cost"], 6)
    total_cost = sum(r["cost"] for r in expected.values())
    assert f"All model calls of the session ({len(served)})" in stats
    assert f"Estimated cost: ${total_cost:.4f}" in stats
    assert last["cost"] == {"amount": round(total_cost, 6), "currency": "USD"}
    # The second prompt's share: everything but the first answer (compression and subagent included).
    turn = last["_meta"]["agent-lsp"]["turn"]
    assert turn["requests"] == len(served) - 1
    assert turn["inputTokens"] == session["inputTokens"] - SCRIPT[0]["usageMetadata"]["promptTokenCount"]
