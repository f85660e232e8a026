"""stream_with_retry / generate_with_retry through the real SDK client against the fake server."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest

from agent_lsp.core.retry import (
    RetryPolicy,
    backoff_delay,
    fallback_model_for,
    generate_with_retry,
    stream_with_retry,
)
from agent_lsp.errors import AuthError, ModelError, ModelStreamInterrupted
from agent_lsp.events import ModelFallback, Retry
from agent_lsp.model.base import ModelChunk
from agent_lsp.model.gemini import GeminiClient
from tests.fakes.fake_gemini import FakeGemini
from tests.model.helpers import make_request, text_stream

Item = ModelChunk | Retry | ModelFallback


class RecordingSleep:
    """A real asyncio sleep that also remembers what it was asked to wait."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)
        await asyncio.sleep(delay)


async def run(client: GeminiClient, policy: RetryPolicy, model: str = "gemini-2.5-pro", **kwargs: Any) -> list[Item]:
    return [item async for item in stream_with_retry(client, make_request(model=model), policy, **kwargs)]


def texts(items: list[Item]) -> list[str]:
    return [i.text for i in items if isinstance(i, ModelChunk)]


async def test_retry_after_header_is_honoured(fake: FakeGemini, client: GeminiClient, fast_policy: RetryPolicy) -> None:
    fake.push({"status": 429, "retry_after": 1}, text_stream("after the wait"))
    sleep = RecordingSleep()
    started = time.monotonic()
    items = await run(client, fast_policy, sleep=sleep)
    elapsed = time.monotonic() - started
    assert elapsed >= 0.95
    assert sleep.delays == [1.0]  # the server's delay exactly, no jitter on top
    (retry,) = [i for i in items if isinstance(i, Retry)]
    assert (retry.attempt, retry.delay_s) == (1, 1.0) and "429" in retry.reason
    assert texts(items) == ["after the wait"]
    assert len(fake.requests) == 2


async def test_retry_info_delay_is_honoured(fake: FakeGemini, client: GeminiClient, fast_policy: RetryPolicy) -> None:
    fake.push({"status": 503, "retry_info": "0.6s"}, text_stream("ok"))
    sleep = RecordingSleep()
    started = time.monotonic()
    items = await run(client, fast_policy, sleep=sleep)
    assert time.monotonic() - started >= 0.55
    assert sleep.delays == [0.6]
    assert isinstance(items[0], Retry) and items[0].delay_s == 0.6
    assert texts(items) == ["ok"]


async def test_bad_request_is_not_retried(fake: FakeGemini, client: GeminiClient, fast_policy: RetryPolicy) -> None:
    fake.push({"status": 400, "message": "Invalid JSON payload"}, text_stream("never"))
    with pytest.raises(ModelError) as info:
        await run(client, fast_policy)
    assert info.value.status == 400
    assert len(fake.requests) == 1 and fake.remaining == 1


async def test_auth_failure_is_not_retried(fake: FakeGemini, client: GeminiClient, fast_policy: RetryPolicy) -> None:
    fake.push({"status": 401, "message": "Request had invalid authentication credentials."})
    with pytest.raises(AuthError):
        await run(client, fast_policy)
    assert len(fake.requests) == 1


async def test_server_error_retried_then_success(
    fake: FakeGemini, client: GeminiClient, fast_policy: RetryPolicy
) -> None:
    fake.push({"status": 500}, {"status": 503}, text_stream("third ", "time"))
    items = await run(client, fast_policy)
    retries = [i for i in items if isinstance(i, Retry)]
    assert [r.attempt for r in retries] == [1, 2]
    assert all(0 < r.delay_s <= fast_policy.max_delay_s for r in retries)
    assert texts(items) == ["third ", "time"]
    assert len(fake.requests) == 3


async def test_cut_stream_yields_partial_then_retry_then_full(
    fake: FakeGemini, client: GeminiClient, fast_policy: RetryPolicy
) -> None:
    full = text_stream("alpha ", "beta ", "gamma")
    fake.push({"chunks": full, "cut_after": 2}, full)
    items = await run(client, fast_policy)
    kinds = [type(i).__name__ for i in items]
    assert kinds == ["ModelChunk", "ModelChunk", "Retry", "ModelChunk", "ModelChunk", "ModelChunk"]
    retry = items[2]
    assert isinstance(retry, Retry) and retry.attempt == 1 and "connection broke" in retry.reason
    assert texts(items[3:]) == ["alpha ", "beta ", "gamma"]
    assert len(fake.requests) == 2


async def test_stream_restarts_are_bounded(fake: FakeGemini, client: GeminiClient, fast_policy: RetryPolicy) -> None:
    cut = {"chunks": text_stream("a", "b"), "cut_after": 1}
    fake.push(cut, cut, cut, text_stream("unreached"))
    seen: list[Item] = []
    with pytest.raises(ModelStreamInterrupted) as info:
        async for item in stream_with_retry(client, make_request(), fast_policy):
            seen.append(item)
    assert [i.attempt for i in seen if isinstance(i, Retry)] == [1, 2]
    assert "broke 3 times" in str(info.value)
    assert len(fake.requests) == 3


async def test_persistent_429_falls_back_to_flash(
    fake: FakeGemini, client: GeminiClient, fast_policy: RetryPolicy
) -> None:
    fake.push({"status": 429}, {"status": 429}, text_stream("flash answer"))
    items = await run(client, fast_policy, model="gemini-2.5-pro")
    fallbacks = [i for i in items if isinstance(i, ModelFallback)]
    assert len(fallbacks) == 1
    assert (fallbacks[0].from_model, fallbacks[0].to_model) == ("gemini-2.5-pro", "gemini-2.5-flash")
    assert [type(i).__name__ for i in items] == ["Retry", "ModelFallback", "ModelChunk"]
    assert [r.path for r in fake.requests] == [
        "/v1beta/models/gemini-2.5-pro:streamGenerateContent",
        "/v1beta/models/gemini-2.5-pro:streamGenerateContent",
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
    ]


async def test_long_quota_wait_falls_back_at_once(fake: FakeGemini, client: GeminiClient) -> None:
    fake.push({"status": 429, "retry_info": "86400s"}, text_stream("flash"))
    items = await run(client, RetryPolicy(initial_delay_s=0.01), model="gemini-3-pro-preview")
    assert isinstance(items[0], ModelFallback) and items[0].to_model == "gemini-3-flash-preview"
    assert fake.requests[1].model == "gemini-3-flash-preview"


async def test_without_fallback_429s_exhaust_attempts(
    fake: FakeGemini, client: GeminiClient, fast_policy: RetryPolicy
) -> None:
    fake.push(*[{"status": 429}] * fast_policy.max_attempts)
    seen: list[Item] = []
    with pytest.raises(ModelError) as info:
        async for item in stream_with_retry(client, make_request(), fast_policy, allow_fallback=False):
            seen.append(item)
    assert info.value.status == 429
    assert f"gave up after {fast_policy.max_attempts} attempts" in str(info.value)
    assert not any(isinstance(i, ModelFallback) for i in seen)
    assert len(seen) == fast_policy.max_attempts - 1  # one Retry between each pair of attempts
    assert {r.model for r in fake.requests} == {"gemini-2.5-pro"}


async def test_flash_models_do_not_fall_back(fake: FakeGemini, client: GeminiClient, fast_policy: RetryPolicy) -> None:
    fake.push({"status": 429}, {"status": 429}, text_stream("still flash"))
    items = await run(client, fast_policy, model="gemini-2.5-flash")
    assert not any(isinstance(i, ModelFallback) for i in items)
    assert texts(items) == ["still flash"]


async def test_cancel_during_backoff_is_prompt(fake: FakeGemini, client: GeminiClient) -> None:
    fake.push({"status": 500}, text_stream("too late"))
    policy = RetryPolicy(initial_delay_s=30.0, max_delay_s=30.0)
    got_retry = asyncio.Event()

    async def consume() -> None:
        async for item in stream_with_retry(client, make_request(), policy):
            if isinstance(item, Retry):
                got_retry.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_retry.wait(), timeout=10)
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 0.5
    assert len(fake.requests) == 1


async def test_cancel_mid_stream_propagates(fake: FakeGemini, client: GeminiClient, fast_policy: RetryPolicy) -> None:
    fake.push({"chunks": text_stream("slow ", "chunks ", "here"), "delay_s": 0.3})
    first = asyncio.Event()

    async def consume() -> None:
        async for _ in stream_with_retry(client, make_request(), fast_policy):
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), timeout=10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(fake.requests) == 1  # cancellation is not an error to retry


async def test_generate_with_retry(fake: FakeGemini, client: GeminiClient, fast_policy: RetryPolicy) -> None:
    fake.push({"status": 503}, text_stream("summary"), {"status": 400})
    chunk = await generate_with_retry(client, make_request(model="gemini-2.5-flash"), fast_policy)
    assert chunk.text == "summary"
    with pytest.raises(ModelError) as info:
        await generate_with_retry(client, make_request(model="gemini-2.5-flash"), fast_policy)
    assert info.value.status == 400
    assert [r.action for r in fake.requests] == ["generateContent"] * 3


async def test_generate_with_retry_honours_retry_after(
    fake: FakeGemini, client: GeminiClient, fast_policy: RetryPolicy
) -> None:
    fake.push({"status": 429, "retry_info": "0.3s"}, text_stream("ok"))
    sleep = RecordingSleep()
    chunk = await generate_with_retry(client, make_request(), fast_policy, sleep=sleep)
    assert chunk.text == "ok" and sleep.delays == [0.3]


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gemini-2.5-pro", "gemini-2.5-flash"),
        ("models/gemini-2.5-pro", "models/gemini-2.5-flash"),
        ("gemini-2.5-pro-preview-06-05", "gemini-2.5-flash"),
        ("gemini-3-pro-preview", "gemini-3-flash-preview"),
        ("gemini-3.1-pro-preview", "gemini-3.1-flash-preview"),
        ("gemini-1.5-pro-002", "gemini-1.5-flash"),
        ("gemini-pro-latest", "gemini-flash-latest"),
        ("gemini-2.5-flash", None),
        ("gemini-2.5-flash-lite", None),
        ("gemini-3-flash-preview", None),
        ("some-other-model", None),
    ],
)
def test_fallback_model_for(model: str, expected: str | None) -> None:
    assert fallback_model_for(model) == expected


def test_backoff_grows_jitters_and_caps() -> None:
    policy = RetryPolicy(initial_delay_s=2.0, max_delay_s=30.0)
    rng = random.Random(7)
    for attempt, base in [(1, 2.0), (2, 4.0), (3, 8.0), (4, 16.0)]:
        delays = [backoff_delay(policy, attempt, rng=rng) for _ in range(200)]
        assert all(base * 0.7 <= d <= base * 1.3 for d in delays)
        assert len(set(delays)) > 100  # jittered, not constant
    assert all(backoff_delay(policy, 10, rng=rng) <= 30.0 for _ in range(200))
