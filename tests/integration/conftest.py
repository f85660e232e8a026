"""Fixtures shared by the end-to-end tests: a scripted Gemini server on 127.0.0.1 for each test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.fake_gemini import FakeGemini


@pytest.fixture
def fake() -> Iterator[FakeGemini]:
    with FakeGemini() as server:
        yield server
