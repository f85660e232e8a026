"""Hooks over LSP: a BeforeAgent hook's context reaches the model, an AfterTool hook's context reaches the
model with the tool's result, and a hook's systemMessage is shown with window/showMessage."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from agent_lsp.untrusted import wrap_untrusted
from tests.fakes.fake_gemini import FakeGemini
from tests.replay_lines import call_line, text_line


async def test_hooks_add_context_and_messages(launch: Any, tmp_path: Path) -> None:
    home = tmp_path / "home"
    script = tmp_path / "ctx.py"
    script.write_text(
        "import json, sys\nevent = json.load(sys.stdin)\n"
        "name = event['hook_event_name']\n"
        "extra = {'systemMessage': 'context added'} if name == 'BeforeAgent' else {}\n"
        "print(json.dumps({'hookSpecificOutput': {'additionalContext': name + ' says hi'}, **extra}))\n"
    )
    command = f"{sys.executable} {script}"
    hooks = {
        "BeforeAgent": [{"hooks": [{"type": "command", "command": command}]}],
        "AfterTool": [{"matcher": "list_.*", "hooks": [{"type": "command", "command": command}]}],
    }
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    with FakeGemini() as fake:
        fake.push(call_line("list_directory", {"dir_path": "."}), text_line("Listed."))
        env = {"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}
        editor = await launch([], replay=False, extra_env=env)
        session = await editor.new_session()
        answer = await editor.request("agent/prompt", {"sessionId": session, "prompt": "what is here?"})
        first, second = (r.body["contents"] for r in fake.generation_requests())
    assert answer == {"stopReason": "end_turn"}
    assert first[-1]["parts"][-1] == {"text": "<hook_context>BeforeAgent says hi</hook_context>"}
    [response] = [p["functionResponse"]["response"] for p in second[-1]["parts"] if "functionResponse" in p]
    framed = wrap_untrusted("AfterTool says hi", source="AfterTool hook")
    assert response["output"].endswith(f"\n\n<hook_context>{framed}</hook_context>")
    # The hook's systemMessage is a notice: this client has no notice support, so it reads as a quoted line.
    assert editor.messages().endswith("Listed.")
    assert "context added" in editor.messages()
