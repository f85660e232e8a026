"""Fixtures for ACP tests: a small real project and the environment the agent subprocess runs with."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.acp.harness import agent_env


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def greet(name):\n    return 'Hello ' + name\n", encoding="utf-8")
    (root / "README.md").write_text("# Demo\n\nCall greet() to say hello.\n", encoding="utf-8")
    return root.resolve()


@pytest.fixture
def env(_private_home: Path) -> dict[str, str]:
    return agent_env(_private_home)
