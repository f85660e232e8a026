"""Editor-shaped clients driven by the ACP SDK: a Zed-like client (fs + terminal: edits go to the editor, the
disk is untouched by us, stale buffers refuse writes) and a CodeCompanion-like one (the diff rides in the
permission request)."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Any

from acp import embedded_text_resource, image_block, resource_block, resource_link_block, text_block

from tests.acp.editor import EditorClient, connect
from tests.acp.harness import agent_argv, call_turn, text_turn, write_script
from tests.fakes.fake_gemini import FakeGemini

UNSAVED = "def greet(name):\n    return 'Hello, ' + name  # typed, not saved\n"


async def test_zed_like_client_edits_through_the_editor(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    app, new = project / "src" / "app.py", project / "src" / "new.py"
    on_disk = app.read_text()
    script = write_script(
        tmp_path / "zed.jsonl",
        [
            call_turn(("replace", {"file_path": "src/app.py", "old_string": "'Hello, '", "new_string": "'Howdy, '"})),
            call_turn(("write_file", {"file_path": "src/new.py", "content": "x = 1\n"})),
            call_turn(("run_shell_command", {"command": "echo from-the-terminal; exit 3"})),
            text_turn("done"),
        ],
    )
    editor = EditorClient(fs=True, terminal=True)
    editor.buffers[str(app)] = UNSAVED
    async with connect(editor, agent_argv(script), env, project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("edit")])
    assert response.stop_reason == "end_turn"
    editor.checker.assert_clean()

    # The edit was computed from the unsaved buffer, shown as a diff, and written back through the editor.
    diff = editor.permission_requests[0]["toolCall"]["content"][0]
    assert diff["type"] == "diff" and diff["oldText"] == UNSAVED and "'Howdy, '" in diff["newText"]
    assert editor.writes == [(str(app), UNSAVED.replace("'Hello, '", "'Howdy, '")), (str(new), "x = 1\n")]
    assert app.read_text() == on_disk and not new.exists()
    assert str(new) in editor.reads  # the agent checked the new file did not exist, through the editor

    # The command ran in an editor terminal that the tool call shows, then was released.
    assert editor.terminal_calls == ["create", "wait_for_exit", "output", "release"]
    create = next(f["params"] for f in editor.checker.frames if f.get("method") == "terminal/create")
    assert create["command"] == "bash" and create["args"][-1] == "echo from-the-terminal; exit 3"
    assert create["cwd"] == str(project)
    updates = editor.updates(session.session_id)
    shell_id = next(u["toolCallId"] for u in updates if u["sessionUpdate"] == "tool_call" and u["kind"] == "execute")
    about_shell = [u for u in updates if u.get("toolCallId") == shell_id]
    assert about_shell[0]["sessionUpdate"] == "tool_call"
    terminal = {"type": "terminal", "terminalId": "term-1"}
    assert any(u.get("content") == [terminal] and u.get("status") == "in_progress" for u in about_shell)
    assert about_shell[-1]["status"] == "completed" and about_shell[-1]["content"] == [terminal]
    assert editor.checker.checked["CreateTerminalRequest"] == 1 and editor.checker.checked["WriteTextFileRequest"] == 2


async def test_stale_buffer_refuses_the_write(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    app = project / "src" / "app.py"
    script = write_script(
        tmp_path / "stale.jsonl",
        [
            call_turn(("replace", {"file_path": "src/app.py", "old_string": "'Hello '", "new_string": "'Hey '"})),
            text_turn("ok"),
        ],
    )

    async def user_types_meanwhile(request: dict[str, Any]) -> str:
        editor.buffers[str(app)] = app.read_text() + "# edited while the agent waited\n"
        return "proceed_once"

    editor = EditorClient(fs=True, answer=user_types_meanwhile)
    async with connect(editor, agent_argv(script), env, project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("edit")])
    assert response.stop_reason == "end_turn"
    editor.checker.assert_clean()
    assert editor.writes == []
    failed = [u for u in editor.updates() if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "failed"]
    assert len(failed) == 1 and "changed in the editor" in failed[0]["content"][0]["content"]["text"]


async def test_codecompanion_like_client_sees_the_diff_in_the_permission_request(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    app = project / "src" / "app.py"
    script = write_script(
        tmp_path / "cc.jsonl",
        [
            call_turn(("replace", {"file_path": str(app), "old_string": "'Hello '", "new_string": "'Salut '"})),
            call_turn(("write_file", {"file_path": "notes.md", "content": "# Notes\n"})),
            text_turn("ok"),
        ],
    )
    editor = EditorClient(fs=True, missing_as_empty=True)  # as CodeCompanion: reads from disk, "" when missing
    async with connect(editor, agent_argv(script), env, project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("edit")])
    editor.checker.assert_clean()
    first, second = (r["toolCall"] for r in editor.permission_requests)
    assert second["title"] == "Write notes.md"
    # Everything a diff review needs is in the request itself, not in an earlier update.
    assert first["content"] == [
        {
            "type": "diff",
            "path": str(app),
            "oldText": "def greet(name):\n    return 'Hello ' + name\n",
            "newText": "def greet(name):\n    return 'Salut ' + name\n",
        }
    ]
    assert first["locations"][0]["path"] == str(app) and first["kind"] == "edit" and first["status"] == "pending"
    assert first["toolCallId"] in {u["toolCallId"] for u in editor.updates() if u["sessionUpdate"] == "tool_call"}
    assert second["content"][0]["oldText"] is None and second["content"][0]["path"] == str(project / "notes.md")
    assert [w[0] for w in editor.writes] == [str(app), str(project / "notes.md")]


async def test_cancel_kills_the_editor_terminal(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path / "t.jsonl", [call_turn(("run_shell_command", {"command": "sleep 30"}))])
    editor = EditorClient(terminal=True, answer="proceed_once")
    async with connect(editor, agent_argv(script), env, project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        prompt = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("wait")]))
        for _ in range(200):
            if "wait_for_exit" in editor.terminal_calls:
                break
            await asyncio.sleep(0.05)
        await conn.cancel(session_id=session.session_id)
        response = await asyncio.wait_for(prompt, 10)
    assert response.stop_reason == "cancelled"
    editor.checker.assert_clean()
    assert editor.terminal_calls[-2:] == ["kill", "release"]
    assert editor.terminals["term-1"].killed and editor.terminals["term-1"].proc.returncode is not None


async def test_prompt_blocks_reach_the_model(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    app = project / "src" / "app.py"
    png = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()
    with FakeGemini() as fake:
        fake.push(
            [{"candidates": [{"content": {"role": "model", "parts": [{"text": "seen"}]}, "finishReason": "STOP"}]}]
        )
        editor = EditorClient(fs=True)
        editor.buffers[str(app)] = UNSAVED
        async with connect(editor, agent_argv(None), {**env, "GOOGLE_GEMINI_BASE_URL": fake.url}, project) as conn:
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            blocks = [
                text_block("Explain "),
                resource_link_block(name="app.py", uri=app.as_uri()),
                resource_block(embedded_text_resource(uri="zed://selection", text="SELECTED TEXT")),
                image_block(png, "image/png"),
            ]
            response = await conn.prompt(session_id=session.session_id, prompt=blocks)
        assert response.stop_reason == "end_turn"
        body = fake.generation_requests()[0].body
    editor.checker.assert_clean()
    parts = body["contents"][-1]["parts"]
    texts = "".join(p.get("text", "") for p in parts)
    assert texts.startswith("Explain ") and UNSAVED in texts and "SELECTED TEXT" in texts and "zed://selection" in texts
    inline = [p.get("inlineData") or p.get("inline_data") for p in parts if "inlineData" in p or "inline_data" in p]
    assert len(inline) == 1 and inline[0]["data"] == png
    assert (inline[0].get("mimeType") or inline[0].get("mime_type")) == "image/png"
