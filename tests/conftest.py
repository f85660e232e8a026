"""Shared pytest fixtures: every test gets a private HOME so nothing reads or writes the real one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

# The session-wide wheel that the install tests (VS Code .vsix, uv/pipx) share.
pytest_plugins = ["tests.wheel"]


@pytest.fixture(autouse=True)
def _private_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENT_LSP_HOME", str(home / ".agent-lsp"))
    # Never the developer's (or a CI runner's) OS keyring: a sign-in test that wants one names its own backend.
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    for var in (
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "GOOGLE_GEMINI_BASE_URL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_MODEL",
    ):
        monkeypatch.delenv(var, raising=False)
    yield home
