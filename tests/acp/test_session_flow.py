"""A whole multi-tool session through the ACP SDK's client: list, read, grep, plan, replace and write with
permission, shell with live output; every frame the agent sends is schema-checked."""

from __future__ import annotations

from pathlib import Path

from acp import text_block

from tests.acp.editor import EditorClient, connect
from tests.acp.harness import agent_argv, call_turn, text_turn, write_script

TODOS = [
    {"description": "Read the code", "status": "completed"},
    {"description": "Change the greeting", "status": "in_progress"},
    {"description": "Add a script", "status": "pending"},
]


def _script(tmp_path: Path, project: Path) -> Path:
    return write_script(
        tmp_path / "multi.jsonl",
        [
            call_turn(
                ("list_directory", {"dir_path": "."}),
                ("read_file", {"file_path": "src/app.py"}),
                ("grep_search", {"pattern": "greet"}),
                text="Looking around.",
            ),
            call_turn(("write_todos", {"todos": TODOS})),
            call_turn(("replace", {"file_path": "src/app.py", "old_string": "'Hello '", "new_string": "'Hi '"})),
            call_turn(("run_shell_command", {"command": "echo first; sleep 0.4; echo second", "description": "count"})),
            call_turn(("write_file", {"file_path": "src/new.py", "content": "print('new')\n"})),
            text_turn("All ", "done."),
        ],
    )


async def test_multi_tool_session(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    editor = EditorClient()
    async with connect(editor, agent_argv(_script(tmp_path, project)), env, project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("Say hi instead of hello")])
    assert response.stop_reason == "end_turn"
    editor.checker.assert_clean()
    updates = editor.updates(session.session_id)
    kinds = [u["sessionUpdate"] for u in updates]

    assert kinds[0] == "available_commands_update"
    assert {c["name"] for c in updates[0]["availableCommands"]} >= {"help", "compress", "memory", "init"}
    assert "session_info_update" in kinds and "usage_update" in kinds

    started = {u["toolCallId"]: u for u in updates if u["sessionUpdate"] == "tool_call"}
    assert [u["kind"] for u in started.values()] == ["read", "read", "search", "think", "edit", "execute", "edit"]
    assert all(u["status"] == "pending" and u["title"] for u in started.values())
    finals = {
        u["toolCallId"]: u
        for u in updates
        if u["sessionUpdate"] == "tool_call_update" and u.get("status") in ("completed", "failed")
    }
    assert set(finals) == set(started)
    assert all(u["status"] == "completed" for u in finals.values()), finals
    for call_id in started:  # announced before anything else about it
        first = next(u for u in updates if u.get("toolCallId") == call_id)
        assert first["sessionUpdate"] == "tool_call"

    # Three calls needed the user: the edit, the command and the new file, asked in that order.
    asked = [r["toolCall"] for r in editor.permission_requests]
    assert [a["kind"] for a in asked] == ["edit", "execute", "edit"]
    diff = asked[0]["content"][0]
    assert diff["type"] == "diff" and diff["oldText"].startswith("def greet") and "'Hi '" in diff["newText"]
    assert asked[2]["content"][0]["oldText"] is None and asked[2]["content"][0]["newText"] == "print('new')\n"
    # Gemini CLI's option ids, from the shared vocabulary; an edit is "all edits this session".
    options = editor.permission_requests[0]["options"]
    assert [(o["optionId"], o["kind"]) for o in options] == [
        ("proceed_once", "allow_once"),
        ("proceed_always", "allow_always"),
        ("reject", "reject_once"),
    ]
    assert options[1]["name"] == "Allow all edits this session"

    # The shell's output arrived while it ran: an update with the first line and not yet the second.
    shell_id = next(i for i, u in started.items() if u["kind"] == "execute")
    live = [
        u["content"][0]["content"]["text"]
        for u in updates
        if u["sessionUpdate"] == "tool_call_update"
        and u["toolCallId"] == shell_id
        and u.get("status") == "in_progress"
        and u.get("content")
    ]
    assert any("first" in t and "second" not in t for t in live), live
    assert "second" in finals[shell_id]["content"][0]["content"]["text"]

    plan = [u for u in updates if u["sessionUpdate"] == "plan"]
    assert [e["content"] for e in plan[-1]["entries"]] == [t["description"] for t in TODOS]
    assert [e["status"] for e in plan[-1]["entries"]] == ["completed", "in_progress", "pending"]

    edit_final = next(u for u in finals.values() if any(c.get("type") == "diff" for c in u.get("content", [])))
    assert edit_final["content"][0]["path"].endswith("app.py")
    message = "".join(u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk")
    assert message.startswith("Looking around.") and message.endswith("All done.")

    assert (project / "src" / "app.py").read_text() == "def greet(name):\n    return 'Hi ' + name\n"
    assert (project / "src" / "new.py").read_text() == "print('new')\n"
    assert not editor.writes and not editor.reads  # no fs capability: the agent used the disk itself
    assert editor.checker.checked["PromptResponse"] == 1 and editor.checker.checked["RequestPermissionRequest"] == 3


async def test_allow_always_is_remembered_for_the_session(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    script = write_script(
        tmp_path / "always.jsonl",
        [
            call_turn(("run_shell_command", {"command": "echo one"})),
            call_turn(("run_shell_command", {"command": "echo two"})),
            text_turn("ok"),
        ],
    )
    editor = EditorClient(answer="proceed_always")
    async with connect(editor, agent_argv(script), env, project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("twice")])
    assert response.stop_reason == "end_turn"
    editor.checker.assert_clean()
    assert len(editor.permission_requests) == 1
    assert "`echo`" in editor.permission_requests[0]["options"][1]["name"]
