"""Hooks over ACP: a BeforeTool hook blocks a shell call (the editor sees the call fail with the hook's reason,
the model reads it) and a SessionStart hook's message reaches the editor; every frame is schema-checked."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from acp import text_block

from tests.acp.editor import EditorClient, connect
from tests.acp.harness import RawClient, agent_argv, write_script
from tests.fakes.fake_gemini import FakeGemini
from tests.replay_lines import call_line, text_line


async def test_hooks_block_a_tool_and_speak_to_the_editor(
    project: Path, env: dict[str, str], _private_home: Path
) -> None:
    script = _private_home / "guard.py"
    script.write_text(
        "import json, sys\nevent = json.load(sys.stdin)\n"
        "if event['hook_event_name'] == 'Notification':\n"
        f"    open({str(_private_home / 'NOTIFIED')!r}, 'w').write(event['notification_type'])\n"
        "elif event['hook_event_name'] == 'SessionStart':\n"
        "    print(json.dumps({'systemMessage': 'guard hooks active'}))\n"
        "else:\n"
        "    print(json.dumps({'decision': 'deny', 'reason': 'shell is off limits'}))\n"
    )
    command = f"{sys.executable} {script}"
    hooks = {
        "SessionStart": [{"hooks": [{"type": "command", "command": command}]}],
        "Notification": [{"hooks": [{"type": "command", "command": command}]}],
        "BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": command}]}],
    }
    (_private_home / ".gemini").mkdir()
    (_private_home / ".gemini" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    with FakeGemini() as fake:
        fake.push(call_line("run_shell_command", {"command": "touch x"}), text_line("Understood."))
        editor = EditorClient()
        async with connect(editor, agent_argv(None), {**env, "GOOGLE_GEMINI_BASE_URL": fake.url}, project) as conn:
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            response = await conn.prompt(session_id=session.session_id, prompt=[text_block("make x")])
        second = fake.generation_requests()[1].body["contents"]
    assert response.stop_reason == "end_turn"
    editor.checker.assert_clean()
    assert not (project / "x").exists()
    assert editor.permission_requests  # asked first (default mode); the hook runs when the call would execute
    assert (_private_home / "NOTIFIED").read_text() == "ToolPermission"  # the Notification hook heard the question
    updates = editor.updates(session.session_id)
    failed = [u for u in updates if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "failed"]
    assert len(failed) == 1 and "Tool execution blocked: shell is off limits" in json.dumps(failed[0])
    shown = json.dumps(updates)
    assert "guard hooks active" in shown
    answer = [p["functionResponse"]["response"] for c in second for p in c["parts"] if "functionResponse" in p]
    assert answer == [{"error": "Tool execution blocked: shell is off limits"}]


async def test_a_message_raised_while_the_session_opens_follows_its_answer(
    tmp_path: Path, project: Path, env: dict[str, str], _private_home: Path
) -> None:
    """A SessionStart hook speaks while session/new is still being answered: a client that shows notices gets the
    notice once, right after the answer that told it the session id (never an update for an unknown session)."""
    hook = _private_home / "hello.py"
    hook.write_text("import json\nprint(json.dumps({'systemMessage': 'hello from the start hook'}))\n")
    hooks = {"SessionStart": [{"hooks": [{"type": "command", "command": f"{sys.executable} {hook}"}]}]}
    (_private_home / ".gemini").mkdir()
    (_private_home / ".gemini" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    script = write_script(tmp_path / "none.jsonl", [])
    async with RawClient.spawn(agent_argv(script), env, project) as client:
        await client.initialize({"session": {"notices": {}}})
        rid, answered = await client.start_request("session/new", {"cwd": str(project), "mcpServers": []})
        sid = (await answered)["result"]["sessionId"]
        await client.wait_for(lambda: any(u["sessionUpdate"] == "notice" for u in client.checker.updates(sid)))
        await client.result("session/list", {"cwd": str(project)})  # a round trip: nothing else is on its way
    client.checker.assert_clean()
    frames = client.checker.frames
    answer = next(i for i, f in enumerate(frames) if f.get("id") == rid and "result" in f)
    notices = [i for i, f in enumerate(frames) if "hello from the start hook" in json.dumps(f)]
    assert len(notices) == 1 and notices[0] > answer
