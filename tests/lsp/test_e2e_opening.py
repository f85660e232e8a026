"""agent/newSession is answered once the session's mode, model and provider are known; its tools, memory and custom
commands are built behind the answer. A prompt sent at once waits for them; a session that cannot be built says
why, with window/showMessage and in the prompt's error."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcException

from tests.lsp.conftest import until
from tests.replay_lines import text_line


def _hold_the_build(home: Path, gate: Path, started: Path) -> None:
    """A SessionStart hook holds the rest of the session until ``gate`` exists, so the order is certain."""
    (home / ".gemini" / "commands").mkdir(parents=True, exist_ok=True)
    hook = home / "hold.py"
    hook.write_text(
        "import os, time\n"
        f"open({str(started)!r}, 'w').close()\n"
        f"while not os.path.exists({str(gate)!r}):\n    time.sleep(0.01)\n"
    )
    hooks = {"SessionStart": [{"hooks": [{"type": "command", "command": f"{sys.executable} {hook}"}]}]}
    (home / ".gemini" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    (home / ".gemini" / "commands" / "review.toml").write_text('description = "Review"\nprompt = "Review {{args}}"\n')


async def test_a_prompt_sent_right_behind_the_answer_waits_for_the_session(launch: Any, tmp_path: Path) -> None:
    gate, started = tmp_path / "go", tmp_path / "started"
    _hold_the_build(tmp_path / "home", gate, started)
    editor = await launch([text_line("ready when you are")])
    # Would time out if the answer waited for the build: the hook holds it until the gate exists.
    answer = await asyncio.wait_for(editor.request("agent/newSession", {"cwd": str(editor.project)}), 30)
    session = answer["sessionId"]
    assert answer["modes"]["currentModeId"] == "default" and answer["provider"]
    assert "review" not in {c["name"] for c in answer["commands"]}  # custom commands come with the build
    await until(started.exists, 30)
    prompted = asyncio.ensure_future(editor.request("agent/prompt", {"sessionId": session, "prompt": "hi"}))
    await asyncio.sleep(0.2)
    assert not prompted.done()
    gate.touch()
    assert await asyncio.wait_for(prompted, 30) == {"stopReason": "end_turn"}
    assert editor.messages() == "ready when you are"
    commands = await editor.wait_update(session, "available_commands_update")
    assert "review" in {c["name"] for c in commands["availableCommands"]}
    kinds = [u["update"]["sessionUpdate"] for u in editor.updates if u["sessionId"] == session]
    assert kinds.index("available_commands_update") < kinds.index("agent_message_chunk")


async def test_a_session_that_cannot_be_built_says_why(launch: Any, tmp_path: Path) -> None:
    state = tmp_path / "state-file"
    state.write_text("a file where the agent's state folder should be")
    editor = await launch([text_line("never said")], extra_env={"AGENT_LSP_HOME": str(state)})
    answer = await editor.request("agent/newSession", {"cwd": str(editor.project)})
    try:
        await editor.request("agent/prompt", {"sessionId": answer["sessionId"], "prompt": "hi"})
        raise AssertionError("the prompt should have failed")
    except JsonRpcException as exc:
        assert exc.code == -32603 and "This session could not be opened" in exc.message
        assert "Not a directory" in exc.message
    shown = [m.message for m in editor.client.messages]
    assert any("This session could not be opened" in m for m in shown), shown


async def test_a_loaded_session_lists_its_custom_commands_in_its_answer_once(launch: Any, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".gemini" / "commands").mkdir(parents=True)
    (home / ".gemini" / "commands" / "review.toml").write_text('description = "Review"\nprompt = "Review {{args}}"\n')
    editor = await launch([text_line("first answer")])
    session = (await editor.request("agent/newSession", {"cwd": str(editor.project)}))["sessionId"]
    await editor.wait_update(session, "available_commands_update")
    assert await editor.request("agent/prompt", {"sessionId": session, "prompt": "hi"}) == {"stopReason": "end_turn"}
    before = len(editor.updates)
    loaded = await editor.request("agent/loadSession", {"sessionId": session, "cwd": str(editor.project)})
    assert "review" in {c["name"] for c in loaded["commands"]}
    await editor.request("agent/listSessions", {"cwd": str(editor.project)})  # a round trip behind the answer
    after = [u["update"]["sessionUpdate"] for u in editor.updates[before:] if not u.get("replay")]
    assert "available_commands_update" not in after
