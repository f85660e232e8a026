"""What a user sees around a permission request, through the ACP SDK's client over a real subprocess: the question
comes after everything the agent produced before it, its title says what the call does, Reject lets the model
answer in the same turn while Cancel ends it, and notices reach clients that only draw updates inside a prompt."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import text_block

from tests.acp.editor import EditorClient, connect
from tests.acp.harness import RawClient, agent_argv, call_turn, text_turn, write_script

REJECTED = 'Tool "replace" was canceled by the user.'


def _index(frames: list[dict[str, Any]], match: Any) -> int:
    return next(i for i, f in enumerate(frames) if match(f))


def _update(frame: dict[str, Any]) -> dict[str, Any]:
    if frame.get("method") != "session/update":
        return {}
    update: dict[str, Any] = frame["params"]["update"]
    return update


def _said(frame: dict[str, Any]) -> str | None:
    update = _update(frame)
    return update["content"]["text"] if update.get("sessionUpdate") == "agent_message_chunk" else None


def _recorded(env: dict[str, str]) -> str:
    """Every session recording the agent wrote (events and the model's history), as one text."""
    files = sorted(Path(env["AGENT_LSP_HOME"]).rglob("*.jsonl"))
    assert files, "the agent recorded no session"
    return "\n".join(f.read_text(encoding="utf-8") for f in files)


def _history_texts(env: dict[str, str]) -> str:
    """The model's history as recorded (what the model reads), without the event records."""
    lines = _recorded(env).splitlines()
    return "\n".join(line for line in lines if line.startswith('{"type":"history"'))


async def test_the_question_comes_after_the_text_and_the_tool_call_it_is_about(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    script = write_script(
        tmp_path / "order.jsonl",
        [
            call_turn(
                ("run_shell_command", {"command": "echo tests-ran", "description": "run the tests"}),
                text="Now I'll run the tests.",
            ),
            call_turn(
                ("replace", {"file_path": "src/app.py", "old_string": "'Hello '", "new_string": "'Hi '"}),
                text="Now the fix.",
            ),
            call_turn(("write_file", {"file_path": "src/new.py", "content": "print('new')\n"})),
            text_turn("Done."),
        ],
    )
    editor = EditorClient()
    async with connect(editor, agent_argv(script), env, project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("fix it and run the tests")])
    assert response.stop_reason == "end_turn"
    editor.checker.assert_clean()
    frames = editor.checker.frames
    asks = [i for i, f in enumerate(frames) if f.get("method") == "session/request_permission"]
    assert len(asks) == 3
    for ask, said in zip(asks, ["Now I'll run the tests.", "Now the fix.", None], strict=True):
        call_id = frames[ask]["params"]["toolCall"]["toolCallId"]
        announced = _index(
            frames,
            lambda f, c=call_id: _update(f).get("sessionUpdate") == "tool_call" and _update(f)["toolCallId"] == c,
        )
        assert announced < ask, "the permission request overtook its own tool call"
        if said is not None:
            text = _index(frames, lambda f, s=said: _said(f) == s)
            assert text < ask, "the permission request overtook the text the model wrote before it"

    # Titles say what each call does: the command itself, the path relative to the workspace.
    titles = [frames[i]["params"]["toolCall"]["title"] for i in asks]
    assert titles[0] == "echo tests-ran"
    assert titles[1] == "Edit src/app.py"
    assert titles[2] == "Write src/new.py"
    calls = {u["toolCallId"]: u["title"] for u in editor.updates() if u["sessionUpdate"] == "tool_call"}
    assert sorted(calls.values()) == sorted(titles)


@pytest.mark.parametrize("answer", ["reject", "an-option-never-offered"])
async def test_reject_tells_the_model_and_it_answers_in_the_same_turn(
    tmp_path: Path, project: Path, env: dict[str, str], answer: str
) -> None:
    script = write_script(
        tmp_path / "reject.jsonl",
        [
            call_turn(("replace", {"file_path": "src/app.py", "old_string": "'Hello '", "new_string": "'Yo '"})),
            text_turn("Understood, I left the greeting as it is."),
        ],
    )
    editor = EditorClient(answer=answer)
    async with connect(editor, agent_argv(script), env, project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("change it")])
    assert response.stop_reason == "end_turn"
    editor.checker.assert_clean()
    assert "'Hello '" in (project / "src" / "app.py").read_text()
    updates = editor.updates()
    failed = [u for u in updates if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "failed"]
    assert len(failed) == 1 and failed[0]["content"][0]["content"]["text"] == REJECTED
    said = "".join(u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk")
    assert said == "Understood, I left the greeting as it is."
    # The model read the rejection as the call's result.
    history = _history_texts(env)
    assert json.dumps({"error": REJECTED}, separators=(",", ":"))[1:-1] in history


async def test_a_partly_accepted_edit_is_written_and_the_model_told_hunk_by_hunk(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    """A client that took one hunk of two answers once with the resulting text; that is what gets written, and
    the model reads which hunk was applied and which refused."""
    old = "def greet(name):\n    # say hello\n    return 'Hello ' + name\n"
    (project / "src" / "app.py").write_text(old)
    proposed = "def hello(name):\n    # say hello\n    return 'Hi ' + name\n"
    taken = "def greet(name):\n    # say hello\n    return 'Hi ' + name\n"
    script = write_script(
        tmp_path / "partial.jsonl",
        [call_turn(("write_file", {"file_path": "src/app.py", "content": proposed})), text_turn("Kept greet.")],
    )
    editor = EditorClient(fs=True)
    editor.answer_meta = {"modifiedContent": taken}
    async with connect(editor, agent_argv(script), env, project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("rename and greet")])
    assert response.stop_reason == "end_turn"
    editor.checker.assert_clean()
    assert editor.writes == [(str(project / "src" / "app.py"), taken)]
    done = [u for u in editor.updates() if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "completed"]
    assert any(c.get("newText") == taken for u in done for c in u.get("content", []))
    history = _history_texts(env)
    assert "Of its 2 hunks: 1 applied, 1 refused." in history
    assert "- hunk 1 (replace line 1 `def greet(name):` with `def hello(name):`): REFUSED" in history
    assert "- hunk 2 (replace line 3 `return 'Hello ' + name` with `return 'Hi ' + name`): applied" in history


async def test_cancel_at_the_question_ends_the_turn(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    script = write_script(
        tmp_path / "cancel.jsonl",
        [
            call_turn(
                ("replace", {"file_path": "src/app.py", "old_string": "'Hello '", "new_string": "'Yo '"}),
                ("write_file", {"file_path": "src/other.py", "content": "x = 1\n"}),
            ),
            text_turn("This answer must never be asked for."),
        ],
    )
    editor = EditorClient(answer="cancelled")
    async with connect(editor, agent_argv(script), env, project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("change it")])
    assert response.stop_reason == "cancelled"
    editor.checker.assert_clean()
    assert len(editor.permission_requests) == 1  # the rest of the batch was not asked about
    assert "'Hello '" in (project / "src" / "app.py").read_text()
    assert not (project / "src" / "other.py").exists()
    updates = editor.updates()
    assert not [u for u in updates if u["sessionUpdate"] == "agent_message_chunk"]
    failed = [u for u in updates if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "failed"]
    assert len(failed) == 2


async def test_session_cancel_while_asking_ends_the_turn(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    script = write_script(
        tmp_path / "stop.jsonl",
        [
            call_turn(("run_shell_command", {"command": "echo never"})),
            text_turn("This answer must never be asked for."),
        ],
    )
    holder: dict[str, Any] = {}

    async def stop_then_answer(_request: dict[str, Any]) -> str:
        # What an editor's Stop button does: session/cancel, then the pending question answers "cancelled".
        await holder["conn"].cancel(session_id=holder["sid"])
        return "cancelled"

    editor = EditorClient(answer=stop_then_answer)
    async with connect(editor, agent_argv(script), env, project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        holder.update(conn=conn, sid=session.session_id)
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("run it")])
    assert response.stop_reason == "cancelled"
    editor.checker.assert_clean()
    assert not [u for u in editor.updates() if u["sessionUpdate"] == "agent_message_chunk"]


async def test_startup_notices_wait_for_the_first_prompt(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path / "n.jsonl", [text_turn("Hello."), text_turn("Again.")])
    untrusted = {**env, "AGENT_LSP_TRUST_WORKSPACE": "false"}
    async with RawClient.spawn(agent_argv(script), untrusted, project) as client:
        await client.initialize()
        sid = (await client.result("session/new", {"cwd": str(project), "mcpServers": []}))["sessionId"]
        # A round trip: anything the agent sent after session/new's answer has arrived by now.
        await client.result("session/list", {"cwd": str(project)})
        before = len(client.checker.frames)
        assert not any("not trusted" in json.dumps(f) for f in client.checker.frames)
        await client.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]})
        first = [u for u in client.checker.updates(sid) if u["sessionUpdate"] == "agent_message_chunk"]
        await client.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "again"}]})
    client.checker.assert_clean()
    notice_frames = [i for i, f in enumerate(client.checker.frames) if "not trusted" in json.dumps(f)]
    assert len(notice_frames) == 1 and notice_frames[0] >= before
    # Shown first in the prompt's stream, as a marked paragraph of its own, then the model's own words.
    assert first[0]["content"]["text"].startswith("\n\n> ⚠️ ") and "not trusted" in first[0]["content"]["text"]
    assert first[1]["content"]["text"] == "Hello."
    assert "not trusted" not in _history_texts(untrusted)


async def test_startup_notices_go_at_once_to_a_client_that_shows_notices(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    script = write_script(tmp_path / "n.jsonl", [text_turn("Hello.")])
    untrusted = {**env, "AGENT_LSP_TRUST_WORKSPACE": "false"}
    async with RawClient.spawn(agent_argv(script), untrusted, project) as client:
        await client.initialize({"session": {"notices": {}}})
        sid = (await client.result("session/new", {"cwd": str(project), "mcpServers": []}))["sessionId"]
        await client.wait_for(lambda: any(u["sessionUpdate"] == "notice" for u in client.checker.updates(sid)))
        await client.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]})
    client.checker.assert_clean()
    notices = [u for u in client.checker.updates(sid) if u["sessionUpdate"] == "notice"]
    assert len(notices) == 1 and notices[0]["severity"] == "warning"
    said = [u["content"]["text"] for u in client.checker.updates(sid) if u["sessionUpdate"] == "agent_message_chunk"]
    assert said == ["Hello."]


async def test_a_loaded_session_replays_its_notices_as_notices(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    unusable = {"method": "generateContentStream", "response": [{"candidates": [{"content": {"parts": []}}]}]}
    script = write_script(tmp_path / "r.jsonl", [unusable, text_turn("Recovered.")])
    async with RawClient.spawn(agent_argv(script), env, project) as client:
        await client.initialize()
        sid = (await client.result("session/new", {"cwd": str(project), "mcpServers": []}))["sessionId"]
        await client.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]})
        live = [
            u["content"]["text"] for u in client.checker.updates(sid) if u["sessionUpdate"] == "agent_message_chunk"
        ]
    client.checker.assert_clean()
    assert len(live) == 2 and live[0].startswith("\n\n> ℹ️ Retrying") and live[1] == "Recovered."
    async with RawClient.spawn(agent_argv(write_script(tmp_path / "none.jsonl", [])), env, project) as again:
        await again.initialize()
        await again.result("session/load", {"sessionId": sid, "cwd": str(project), "mcpServers": []})
        replayed = [u for u in again.checker.updates(sid) if u["sessionUpdate"] == "agent_message_chunk"]
    again.checker.assert_clean()
    assert [u["content"]["text"] for u in replayed] == live


async def test_every_tool_of_an_mcp_server_can_be_allowed_at_once(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    """The per-server choice (Gemini CLI's proceed_always_server) is offered over ACP too: answering it once lets
    the server's other tools run without asking for the rest of the session."""
    server = Path(__file__).parent.parent / "mcp" / "servers" / "echo_server.py"
    (project / ".gemini").mkdir()
    settings = {"mcpServers": {"echo": {"command": sys.executable, "args": [str(server), "--name", "acp-echo"]}}}
    (project / ".gemini" / "settings.json").write_text(json.dumps(settings))
    script = write_script(
        tmp_path / "mcp.jsonl",
        [
            call_turn(("mcp_echo_add", {"a": 2, "b": 3})),
            call_turn(("mcp_echo_echo", {"text": "hi"})),
            text_turn("5, and hi."),
        ],
    )
    editor = EditorClient(answer="proceed_always_server")
    async with connect(editor, agent_argv(script), env, project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("add, then echo")])
    assert response.stop_reason == "end_turn"
    editor.checker.assert_clean()
    assert len(editor.permission_requests) == 1  # echo ran without asking
    options = editor.permission_requests[0]["options"]
    assert [o["optionId"] for o in options] == ["proceed_once", "proceed_always", "proceed_always_server", "reject"]
    assert options[2] == {
        "optionId": "proceed_always_server",
        "name": "Always allow every tool of `echo` this session",
        "kind": "allow_always",
    }
    finals = [u for u in editor.updates() if u["sessionUpdate"] == "tool_call_update" and u.get("status")]
    assert [u["status"] for u in finals if u["status"] in ("completed", "failed")] == ["completed", "completed"]


async def test_allow_in_all_future_sessions_is_offered_and_saved(
    tmp_path: Path, project: Path, env: dict[str, str], _private_home: Path
) -> None:
    """With security.enablePermanentToolApproval, the question offers Gemini CLI's proceed_always_and_save; choosing
    it writes a policy rule, so a session in a new agent process runs the same program without asking."""
    (_private_home / ".gemini").mkdir()
    (_private_home / ".gemini" / "settings.json").write_text(
        json.dumps({"security": {"enablePermanentToolApproval": True}})
    )
    turns = [call_turn(("run_shell_command", {"command": "echo saved"})), text_turn("done")]
    editor = EditorClient(answer="proceed_always_and_save")
    async with connect(editor, agent_argv(write_script(tmp_path / "a.jsonl", turns)), env, project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        assert (await conn.prompt(session_id=session.session_id, prompt=[text_block("echo")])).stop_reason == "end_turn"
    editor.checker.assert_clean()
    options = editor.permission_requests[0]["options"]
    assert [o["optionId"] for o in options] == ["proceed_once", "proceed_always", "proceed_always_and_save", "reject"]
    assert options[2]["name"] == "Allow this command in all future sessions" and options[2]["kind"] == "allow_always"
    assert "echo" in (_private_home / ".gemini" / "policies" / "auto-saved.toml").read_text()

    later = EditorClient(answer="reject")
    async with connect(later, agent_argv(write_script(tmp_path / "b.jsonl", turns)), env, project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        assert (await conn.prompt(session_id=session.session_id, prompt=[text_block("echo")])).stop_reason == "end_turn"
    later.checker.assert_clean()
    assert later.permission_requests == []
    finals = [u for u in later.updates() if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "completed"]
    assert len(finals) == 1 and "saved" in json.dumps(finals[0])
