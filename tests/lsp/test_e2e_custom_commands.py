"""Custom ``.toml`` commands over LSP: announced through agent/update once the session is built (agent/newSession
answers with the built-in ones at once) and again when the files change, and run against the real google-genai
client and the fake Gemini server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.acp_schema import validate
from tests.fakes.fake_gemini import FakeGemini
from tests.replay_lines import text_line


async def test_custom_commands_listed_refreshed_and_run(launch: Any, tmp_path: Path) -> None:
    home = tmp_path / "home"
    review = home / ".gemini" / "commands" / "review.toml"
    review.parent.mkdir(parents=True)
    review.write_text('description = "Review a file"\nprompt = "Review {{args}} against @{GUIDE.md}"\n')
    with FakeGemini() as fake:
        fake.push(text_line("looks fine"), text_line("ok"))
        env = {"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}
        editor = await launch([], replay=False, extra_env=env)
        (editor.project / "GUIDE.md").write_text("Keep functions short.")
        result = await editor.request("agent/newSession", {"cwd": str(editor.project)})
        session = result["sessionId"]
        assert "help" in {c["name"] for c in result["commands"]}
        built = await editor.wait_update(session, "available_commands_update")
        commands = {c["name"]: c["description"] for c in built["availableCommands"]}
        assert commands["review"] == "Review a file" and "help" in commands

        answer = await editor.request("agent/prompt", {"sessionId": session, "prompt": "/review app.py"})
        assert answer == {"stopReason": "end_turn"}
        assert editor.messages() == "looks fine"

        # A command added while the session is open is offered from the next prompt on.
        (editor.project / ".gemini" / "commands").mkdir(parents=True)
        (editor.project / ".gemini" / "commands" / "todo.toml").write_text('prompt = "List the TODOs"\n')
        await editor.request("agent/prompt", {"sessionId": session, "prompt": "/todo"})
        sent = [r.body["contents"][-1]["parts"] for r in fake.generation_requests()]
    assert ["".join(p.get("text", "") for p in parts) for parts in sent] == [
        "Review app.py against Keep functions short.",
        "List the TODOs",
    ]
    announced = [u["update"] for u in editor.updates if u["update"]["sessionUpdate"] == "available_commands_update"]
    assert len(announced) == 2  # once the session was built, then when todo.toml appeared
    for update in announced:
        validate("SessionUpdate", update)
    names = {c["name"] for c in announced[-1]["availableCommands"]}
    assert {"review", "todo", "help"} <= names
