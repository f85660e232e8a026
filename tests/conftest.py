"""Shared pytest fixtures: every test gets a private HOME so nothing reads or writes the real one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

# The session-wide wheel that the install tests (VS Code .vsix, uv/pipx) share.
pytest_plugins = ["tests.wheel", "pytester"]


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


@pytest.fixture(autouse=True)
def _acp_frames_are_valid() -> Iterator[None]:
    """Every frame an agent sent to a test's ACP client (EditorClient, RawClient, any SchemaChecker) is valid against
    the pinned ACP schema: a test fails on an invalid one without having to call ``checker.assert_clean()``."""
    from tests import acp_schema

    acp_schema.CHECKERS.clear()
    yield
    problems = [problem for checker in acp_schema.CHECKERS for problem in checker.problems]
    acp_schema.CHECKERS.clear()
    if problems:
        pytest.fail("invalid ACP frames from the agent:\n" + "\n".join(problems), pytrace=False)
