"""Editor context reaches the model as an attachment: selected code is never read for ``@path`` mentions, and the
session's title is what the user typed."""

from __future__ import annotations

import json
from typing import Any

from tests.replay_lines import text_line


async def test_selected_code_with_at_signs_is_not_read_as_mentions(launch: Any) -> None:
    editor = await launch([text_line("It is a fixture.")])
    (editor.project / "conftest.py").write_text("import pytest\n\n@pytest.fixture\ndef home(): ...\n")
    sid = (await editor.request("agent/newSession", {"cwd": str(editor.project)}))["sessionId"]
    context = {
        "uri": (editor.project / "conftest.py").as_uri(),
        "range": {"start": {"line": 2, "character": 0}, "end": {"line": 4, "character": 0}},
        "selectedText": "@pytest.fixture\ndef home(): ...  # ask me@example.com\n",
    }
    result = await editor.request("agent/prompt", {"sessionId": sid, "prompt": "what is this?", "context": context})
    assert result == {"stopReason": "end_turn"}
    wire = json.dumps(editor.updates)
    assert "Skipped" not in wire and "not found" not in wire
    titles = [u["update"].get("title") for u in editor.updates if u["update"]["sessionUpdate"] == "session_info_update"]
    assert titles == ["what is this?"]
