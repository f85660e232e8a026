"""A plain LSP client that refuses the agent's edit (``workspace/applyEdit`` answered ``applied: false`` with a
``failureReason``): the model is told the change failed, with the editor's reason, and nothing is written (issue #41:
the model must never read "Successfully modified" for a change that did not happen)."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.fake_gemini import FakeGemini
from tests.replay_lines import call_line, text_line

REASON = "the user declined the change in the preview"


async def test_a_refused_edit_reaches_the_model_as_a_failure_with_the_reason(launch: Any) -> None:
    with FakeGemini() as fake:
        fake.push(
            call_line("replace", {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 2"}),
            text_line("Understood."),
        )
        env = {"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}
        editor = await launch([], replay=False, extra_env=env)
        path = editor.project / "a.py"
        path.write_text("x = 1\n")
        uri = editor.open(path)
        editor.refuse_edits = REASON
        session = await editor.new_session(approvalMode="yolo")
        answer = await editor.request("agent/prompt", {"sessionId": session, "prompt": "x should be 2"})
        assert answer == {"stopReason": "end_turn"}
        requests = fake.generation_requests()
    assert len(editor.edits) == 1  # asked once, refused once
    told = [
        part["functionResponse"]
        for content in requests[-1].body["contents"]
        for part in content["parts"]
        if "functionResponse" in part
    ]
    assert len(told) == 1
    said = json.dumps(told[0]["response"])
    assert REASON in said and "did not apply" in said, said
    assert "Successfully" not in said
    assert path.read_text() == "x = 1\n" and editor.docs[uri].text == "x = 1\n"
