"""MCP prompts over LSP: the session's commands are announced again (agent/update) once server-everything's
prompts arrive, and a prompt command sends the server's text to the model (real google-genai client, fake
Gemini server)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.fake_gemini import FakeGemini
from tests.lsp.conftest import until
from tests.mcp.third_party_servers import NODE_BIN, installed
from tests.replay_lines import text_line


async def test_lsp_editor_gets_the_prompts_and_runs_one(launch: Any, tmp_path: Path) -> None:
    settings = tmp_path / "home" / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    server = {"command": installed(NODE_BIN / "mcp-server-everything"), "args": ["stdio"]}
    settings.write_text(json.dumps({"mcpServers": {"everything": server}}))
    with FakeGemini() as fake:
        fake.push(text_line("Sunny."))
        env = {"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}
        editor = await launch([], replay=False, extra_env=env)
        session = (await editor.request("agent/newSession", {"cwd": str(editor.project)}))["sessionId"]

        def offered() -> set[str]:
            updates = [
                u["update"] for u in editor.updates if u["update"]["sessionUpdate"] == "available_commands_update"
            ]
            return {c["name"] for c in updates[-1]["availableCommands"]} if updates else set()

        await until(lambda: "args-prompt" in offered(), 60)
        answer = await editor.request("agent/prompt", {"sessionId": session, "prompt": "/args-prompt --city=Lyon"})
        assert answer == {"stopReason": "end_turn"}
        sent = fake.generation_requests()[0].body["contents"][-1]["parts"]
    assert "".join(p.get("text", "") for p in sent) == "What's weather in Lyon?"
    assert {"simple-prompt", "args-prompt", "help"} <= offered()
