"""Credentials over LSP, decided where ACP decides them: by the runtime, from the session folder's settings and .env."""

from __future__ import annotations

from typing import Any


async def test_a_key_in_the_trusted_folders_env_file_opens_sessions(launch: Any) -> None:
    # As over ACP: the runtime reads the session folder's .env (the folder is trusted here), so the editor's
    # session opens although the user's own environment has no key.
    editor = await launch([], replay=False)
    (editor.project / ".env").write_text("GEMINI_API_KEY=test-key-not-real\n")
    described = await editor.request("agent/newSession", {"cwd": str(editor.project)})
    assert described["sessionId"] and "GEMINI_API_KEY" in described["provider"]
