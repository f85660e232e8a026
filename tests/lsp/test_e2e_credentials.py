"""Credentials over LSP, decided where ACP decides them: by the runtime, from the session folder's settings and .env."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.lsp.conftest import until


async def test_a_key_in_the_trusted_folders_env_file_opens_sessions(launch: Any) -> None:
    # As over ACP: the runtime reads the session folder's .env (the folder is trusted here), so the editor's
    # session opens although the user's own environment has no key.
    editor = await launch([], replay=False)
    (editor.project / ".env").write_text("GEMINI_API_KEY=test-key-not-real\n")
    described = await editor.request("agent/newSession", {"cwd": str(editor.project)})
    assert described["sessionId"] and "GEMINI_API_KEY" in described["provider"]


async def test_the_start_up_warning_follows_the_same_rule(launch: Any, tmp_path: Path) -> None:
    """The check at start-up looks where a session would: no warning when the first folder's .env has the key."""
    project = tmp_path / "project"
    project.mkdir()
    (project / ".env").write_text("GEMINI_API_KEY=test-key-not-real\n")
    editor = await launch([], replay=False)
    described = await editor.request("agent/newSession", {"cwd": str(editor.project)})
    assert described["sessionId"]
    await asyncio.sleep(0.5)  # the check runs on a worker thread after `initialized`
    assert not [m.message for m in editor.client.messages if "GEMINI_API_KEY" in m.message]


async def test_the_start_up_warning_names_what_to_set(launch: Any) -> None:
    editor = await launch([], replay=False)
    await until(lambda: any("GEMINI_API_KEY" in m.message for m in editor.client.messages))
