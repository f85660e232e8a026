"""Fixtures shared by the end-to-end tests: a scripted Gemini server on 127.0.0.1 for each test."""

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
def project(tmp_path: Path) -> Path:
    """A two-file project (a typo to fix in app.py); tests that need another one define their own."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("def greet():\n    return 'helo'\n")
    (root / "README.md").write_text("# app\n")
    return root
