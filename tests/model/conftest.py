"""Fixtures for the model tests: a live fake Gemini server and GeminiClients pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from agent_lsp.core.retry import RetryPolicy
from agent_lsp.model.auth import AuthConfig
from agent_lsp.model.gemini import GeminiClient
from tests.fakes.fake_gemini import FakeGemini
from tests.model.helpers import TEST_KEY


@pytest.fixture
def fake() -> Iterator[FakeGemini]:
    with FakeGemini() as server:
        yield server


@pytest.fixture
async def client(fake: FakeGemini) -> AsyncIterator[GeminiClient]:
    gemini = GeminiClient(AuthConfig(mode="api_key", api_key=TEST_KEY, base_url=fake.url, key_env="GEMINI_API_KEY"))
    try:
        yield gemini
    finally:
        await gemini.aclose()


@pytest.fixture
def fast_policy() -> RetryPolicy:
    """Tiny backoff so tests that do not measure waiting do not wait."""
    return RetryPolicy(max_attempts=4, initial_delay_s=0.01, max_delay_s=0.05, stream_retries=2, fallback_after_429s=2)
