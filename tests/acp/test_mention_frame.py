"""An ``@file`` mention over ACP reaches the model inside one "Content from referenced files" frame (issue #41: the
file reader and the prompt's expander each framed it, so every request carried the frame twice)."""

from __future__ import annotations

from pathlib import Path

from acp import text_block

from tests.acp.editor import EditorClient, connect
from tests.acp.harness import agent_argv
from tests.fakes.fake_gemini import FakeGemini
from tests.replay_lines import text_line

OPEN = "--- Content from referenced files ---"
CLOSE = "--- End of content ---"


async def test_mention_is_framed_once(project: Path, env: dict[str, str]) -> None:
    (project / "notes.md").write_text("Remember the milk.\n")
    with FakeGemini() as fake:
        fake.push(text_line("noted"))
        editor = EditorClient()
        async with connect(editor, agent_argv(None), {**env, "GOOGLE_GEMINI_BASE_URL": fake.url}, project) as conn:
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            response = await conn.prompt(session_id=session.session_id, prompt=[text_block("summarise @notes.md")])
            assert response.stop_reason == "end_turn"
        [request] = fake.generation_requests()
    user = [c for c in request.body["contents"] if c["role"] == "user"][-1]
    sent = "".join(p.get("text", "") for p in user["parts"])
    assert sent.count(OPEN) == 1 and sent.count(CLOSE) == 1, sent
    assert sent.index(OPEN) < sent.index("Remember the milk.") < sent.index(CLOSE)
