"""Fixtures shared by the end-to-end tests: a scripted Gemini server on 127.0.0.1 for each test, and (for the
tests run through ``test_gemini_cli_parity.agent``) a scratch HOME and an empty project folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.fake_gemini import FakeGemini


@pytest.fixture
def fake() -> Iterator[FakeGemini]:
    with FakeGemini() as server:
        yield server


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home" / ".gemini").mkdir(parents=True)
    return tmp_path / "home"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "proj").mkdir()
    return (tmp_path / "proj").resolve()
