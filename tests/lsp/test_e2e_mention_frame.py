"""An ``@file`` mention over LSP (what ``:AgentPrompt … @notes.md`` sends) reaches the model inside one "Content from
referenced files" frame (issue #41: it came twice, once from the file reader and once from the prompt's expander)."""

from __future__ import annotations

from typing import Any

from tests.fakes.fake_gemini import FakeGemini
from tests.replay_lines import text_line

OPEN = "--- Content from referenced files ---"
CLOSE = "--- End of content ---"


async def test_mention_is_framed_once(launch: Any) -> None:
    with FakeGemini() as fake:
        fake.push(text_line("noted"))
        env = {"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}
        editor = await launch([], replay=False, extra_env=env)
        (editor.project / "notes.md").write_text("Remember the milk.\n")
        session = (await editor.request("agent/newSession", {"cwd": str(editor.project)}))["sessionId"]
        answer = await editor.request("agent/prompt", {"sessionId": session, "prompt": "summarise @notes.md"})
        assert answer == {"stopReason": "end_turn"}
        [request] = fake.generation_requests()
    user = [c for c in request.body["contents"] if c["role"] == "user"][-1]
    sent = "".join(p.get("text", "") for p in user["parts"])
    assert sent.count(OPEN) == 1 and sent.count(CLOSE) == 1, sent
    assert sent.index(OPEN) < sent.index("Remember the milk.") < sent.index(CLOSE)
