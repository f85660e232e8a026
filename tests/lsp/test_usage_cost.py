"""usage_update carries the session's estimated cost (ACP's UsageUpdate.cost) from the price table or settings."""

from __future__ import annotations

from typing import Any

import pytest

from agent_lsp.model.prices import Price, price_of, request_cost
from tests.replay_lines import text_line


def test_prices_use_the_long_prompt_rates_above_200k_and_settings_first() -> None:
    pro = Price(1.25, 10.0, 2.5, 15.0)
    assert request_cost(pro, 100_000, 1_000) == pytest.approx(0.125 + 0.01)
    assert request_cost(pro, 300_000, 1_000) == pytest.approx(0.75 + 0.015)
    assert price_of("models/gemini-2.5-flash") == Price(0.3, 2.5)
    assert price_of("gemini-2.5-flash", {"gemini-2.5-flash": Price(1, 1)}) == Price(1, 1)
    assert price_of("my-local-model") is None


def _costs(editor: Any) -> list[Any]:
    return [u["update"].get("cost") for u in editor.updates if u["update"]["sessionUpdate"] == "usage_update"]


async def test_the_cost_accumulates_over_the_session(launch: Any) -> None:
    editor = await launch([text_line("one"), text_line("two")])
    sid = (await editor.request("agent/newSession", {"cwd": str(editor.project)}))["sessionId"]
    for text in ("first", "second"):
        await editor.request("agent/prompt", {"sessionId": sid, "prompt": text})
    # "auto" is Gemini 3.1 Pro: $2 / $12 per million; each answer is 20 prompt and 5 output tokens.
    assert _costs(editor) == [{"amount": 0.0001, "currency": "USD"}, {"amount": 0.0002, "currency": "USD"}]


async def test_settings_override_the_price_and_an_unknown_model_has_none(launch: Any) -> None:
    prices = {"gemini-3.1-pro-preview": {"inputPerMillion": 1000, "outputPerMillion": 2000}}
    editor = await launch([text_line("one")], init_options={"settings": {"model": {"prices": prices}}})
    sid = (await editor.request("agent/newSession", {"cwd": str(editor.project)}))["sessionId"]
    await editor.request("agent/prompt", {"sessionId": sid, "prompt": "hi"})
    assert _costs(editor) == [{"amount": 0.03, "currency": "USD"}]

    other = await launch([text_line("one")], init_options={"model": "gemini-9-ultra"})
    sid = (await other.request("agent/newSession", {"cwd": str(other.project)}))["sessionId"]
    await other.request("agent/prompt", {"sessionId": sid, "prompt": "hi"})
    assert _costs(other) == [None]
