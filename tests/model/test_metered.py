"""The session's usage ledger (model/metered.py): every request through a metered client is counted once, by
model — a stream by the last usage it reported (running totals on several chunks are not added up), a whole
response by its own — priced by the table or settings; a router hands out only metered clients."""

from __future__ import annotations

from typing import Any

import pytest

from agent_lsp import events as ev
from agent_lsp.model.base import Content, GenerateRequest, Part
from agent_lsp.model.metered import MeteredClient, UsageLedger
from agent_lsp.model.prices import Price, price_of
from agent_lsp.model.replay import ReplayModel
from agent_lsp.model.router import ModelRouter


def _stream(*usages: dict[str, int]) -> dict[str, Any]:
    chunks: list[dict[str, Any]] = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": f"part {i}"}]}}], "usageMetadata": u}
        for i, u in enumerate(usages)
    ]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    return {"method": "generateContentStream", "response": chunks}


def _request(model: str) -> GenerateRequest:
    return GenerateRequest(model=model, contents=(Content("user", (Part(text="hi"),)),))


async def test_a_stream_counts_its_last_report_and_a_response_its_own() -> None:
    running = [
        {"promptTokenCount": 100, "candidatesTokenCount": 2, "totalTokenCount": 102},
        {"promptTokenCount": 100, "candidatesTokenCount": 9, "thoughtsTokenCount": 4, "totalTokenCount": 113},
    ]
    whole = {"promptTokenCount": 50, "candidatesTokenCount": 5, "totalTokenCount": 55}
    replay = ReplayModel([_stream(*running), {"method": "generateContent", "response": _stream(whole)["response"][0]}])
    ledger = UsageLedger()
    client = MeteredClient(replay, ledger)
    start = ledger.totals()
    async for _chunk in client.stream(_request("models/gemini-2.5-flash")):
        pass
    after_stream = ledger.totals()
    await client.generate(_request("gemini-2.5-pro"))
    totals = ledger.totals()
    by_model = {m.model: m for m in totals.by_model}
    assert by_model["gemini-2.5-flash"].requests == 1
    assert by_model["gemini-2.5-flash"].usage == ev.Usage(100, 9, 4, 0, 113)  # the last report, not the sum
    assert by_model["gemini-2.5-pro"].usage == ev.Usage(50, 5, 0, 0, 55)
    flash, pro = price_of("gemini-2.5-flash"), price_of("gemini-2.5-pro")
    assert flash is not None and pro is not None
    expected = (100 * flash.input + 13 * flash.output + 50 * pro.input + 5 * pro.output) / 1_000_000
    assert totals.cost == pytest.approx(expected)
    assert totals.since(after_stream).requests == 1 and totals.since(start).requests == 2
    assert [m.model for m in totals.since(after_stream).by_model] == ["gemini-2.5-pro"]


async def test_a_model_without_a_price_makes_the_total_unknown_but_keeps_its_tokens() -> None:
    ledger = UsageLedger(lambda model: Price(1, 1) if model == "priced" else None)
    client = MeteredClient(ReplayModel([_stream({"promptTokenCount": 10, "totalTokenCount": 10})] * 2), ledger)
    for model in ("priced", "local"):
        async for _chunk in client.stream(_request(model)):
            pass
    totals = ledger.totals()
    assert totals.cost is None and totals.usage.prompt_tokens == 20
    assert {m.model: m.cost for m in totals.by_model} == {"priced": pytest.approx(10 / 1_000_000), "local": None}


def test_the_router_hands_out_metered_clients_into_its_ledger() -> None:
    replay = ReplayModel([])
    router = ModelRouter("replay", "test", {"replay": lambda: replay})
    client = router.client()
    assert isinstance(client, MeteredClient) and client.inner is replay and client.ledger is router.ledger
    assert router.client() is client  # built once
    assert client.requests is replay.requests  # what the wrapped client offers passes through
