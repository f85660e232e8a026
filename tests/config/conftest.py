"""Fixtures for config tests: a private system-settings folder and helpers to write settings files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _no_outside_config(monkeypatch: pytest.MonkeyPatch) -> None:
    # Variables from the developer's shell would redirect or short-circuit what these tests exercise.
    for var in (
        "GEMINI_CLI_HOME",
        "GEMINI_CLI_SYSTEM_DEFAULTS_PATH",
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
        "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
        "GEMINI_CLI_TRUST_WORKSPACE",
        "AGENT_LSP_TRUST_WORKSPACE",
    ):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def home(_private_home: Path) -> Path:
    return _private_home


@pytest.fixture
def system_dir(tmp_path: Path) -> Path:
    d = tmp_path / "etc-gemini-cli"
    d.mkdir()
    return d


@pytest.fixture
def env(home: Path, system_dir: Path) -> dict[str, str]:
    """The env mapping handed to the loader: system files redirected into the test's temp dir."""
    return {
        "HOME": str(home),
        "GEMINI_CLI_SYSTEM_DEFAULTS_PATH": str(system_dir / "system-defaults.json"),
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(system_dir / "settings.json"),
    }


@pytest.fixture
def workspace(home: Path) -> Path:
    # Under HOME so that walking up for .env or .git stops inside the test's own folders.
    ws = home / "projects" / "ws"
    ws.mkdir(parents=True)
    return ws


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def write_text(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
