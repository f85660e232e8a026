"""Rewind over ACP through the ACP SDK's client (every agent frame schema-checked): the extension method
``_agent-lsp/rewind`` advertised in initialize, after a two-edit conversation against the fake Gemini server;
the disk, a conflict, undo, the next request's history, and a reloaded session."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from acp import text_block

from tests.acp.editor import EditorClient, connect
from tests.acp.harness import agent_argv, call_turn, text_turn
from tests.fakes.fake_gemini import FakeGemini


def user_texts(fake: FakeGemini) -> list[str]:
    last = [r for r in fake.requests if r.action and "generate" in r.action.lower()][-1]
    return [p["text"] for c in last.body["contents"] if c["role"] == "user" for p in c["parts"] if "text" in p]


async def test_rewind_over_acp(project: Path, env: dict[str, str]) -> None:
    readme = (project / "README.md").read_text()
    with FakeGemini() as fake:
        env = {**env, "GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}
        fake.push(
            call_turn(("replace", {"file_path": "src/app.py", "old_string": "'Hello '", "new_string": "'Hi '"})),
            text_turn("first done"),
            call_turn(("write_file", {"file_path": "src/new.py", "content": "print('new')\n"})),
            call_turn(("replace", {"file_path": "README.md", "old_string": "# Demo", "new_string": "# Changed"})),
            text_turn("second done"),
            text_turn("edited and sent again"),
        )
        editor = EditorClient()
        async with connect(editor, agent_argv(None, "--approval-mode", "auto_edit"), env, project) as conn:
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            sid = session.session_id
            await conn.prompt(session_id=sid, prompt=[text_block("greet with Hi")])
            (project / "mine.txt").write_text("mine\n")
            await conn.prompt(session_id=sid, prompt=[text_block("add new.py and retitle")])

            rewind = "agent-lsp/rewind"  # the SDK adds the leading underscore of an extension method
            listing: dict[str, Any] = await conn.ext_method(rewind, {"sessionId": sid})
            assert [m["text"] for m in listing["messages"]] == ["greet with Hi", "add new.py and retitle"]
            preview = await conn.ext_method(rewind, {"sessionId": sid, "messageIndex": 1, "dryRun": True})
            assert (preview["restore"], preview["delete"]) == (["README.md"], ["src/new.py"])
            assert (project / "src" / "new.py").exists()  # a dry run changes nothing

            done = await conn.ext_method(rewind, {"sessionId": sid, "messageIndex": 1})
            assert done["text"] == "add new.py and retitle" and done["conflicts"] == []
            assert (project / "README.md").read_text() == readme
            assert not (project / "src" / "new.py").exists()
            assert "'Hi '" in (project / "src" / "app.py").read_text()
            assert (project / "mine.txt").read_text() == "mine\n"

            assert (await conn.ext_method(rewind, {"sessionId": sid, "undo": True}))["messageIndex"] == 1
            assert (project / "src" / "new.py").exists()
            (project / "README.md").write_text("# my own title\n")
            again = await conn.ext_method(rewind, {"sessionId": sid, "messageIndex": 1})
            assert again["conflicts"] == ["README.md"]
            assert (project / "README.md").read_text() == "# my own title\n"

            await conn.prompt(session_id=sid, prompt=[text_block("add new.py only")])
            assert user_texts(fake) == ["greet with Hi", "add new.py only"]

            try:
                await conn.ext_method(rewind, {"sessionId": sid, "messageIndex": 7})
            except Exception as exc:  # the SDK raises the JSON-RPC error
                assert "no user message 7" in str(exc)
            else:
                raise AssertionError("rewinding to a message that does not exist must fail")
        editor.checker.assert_clean()
    initialized = next(f["result"] for f in editor.checker.frames if "agentCapabilities" in f.get("result", {}))
    assert initialized["agentCapabilities"]["_meta"]["agent-lsp"]["rewind"] == "_agent-lsp/rewind"
    commands = next(u for u in editor.updates(sid) if u["sessionUpdate"] == "available_commands_update")
    rewind_command = next(c for c in commands["availableCommands"] if c["name"] == "rewind")
    assert rewind_command["input"]["hint"] == "[message number]"


async def test_session_fork_copies_history_mode_model_and_checkpoints(project: Path, env: dict[str, str]) -> None:
    with FakeGemini() as fake:
        env = {**env, "GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}
        fake.push(
            call_turn(("write_file", {"file_path": "src/new.py", "content": "print('new')\n"})),
            text_turn("created"),
            text_turn("the fork answers"),
            text_turn("the source answers"),
        )
        editor = EditorClient()
        async with connect(editor, agent_argv(None), env, project) as conn:
            source = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await conn.set_session_mode(session_id=source, mode_id="auto_edit")
            await conn.set_config_option(config_id="model", session_id=source, value="gemini-2.5-flash")
            await conn.prompt(session_id=source, prompt=[text_block("make new.py")])
            assert (project / "src" / "new.py").exists()

            fork = await conn.fork_session(session_id=source, cwd=str(project))
            assert fork.session_id != source
            assert fork.modes is not None and fork.modes.current_mode_id == "auto_edit"
            chosen = {o.id: o.current_value for o in fork.config_options or []}
            assert chosen["model"] == "gemini-2.5-flash"

            await conn.prompt(session_id=fork.session_id, prompt=[text_block("in the fork")])
            assert user_texts(fake) == ["make new.py", "in the fork"]
            await conn.prompt(session_id=source, prompt=[text_block("in the source")])
            assert user_texts(fake) == ["make new.py", "in the source"]  # the fork's turn is not the source's

            # The fork's checkpoints are found again: rewinding it to its first message removes new.py.
            rewind = "agent-lsp/rewind"
            done = await conn.ext_method(rewind, {"sessionId": fork.session_id, "messageIndex": 0})
            assert done["delete"] == ["src/new.py"] and not (project / "src" / "new.py").exists()
        editor.checker.assert_clean()
    assert editor.checker.checked.get("ForkSessionResponse") == 1
    initialized = next(f["result"] for f in editor.checker.frames if "agentCapabilities" in f.get("result", {}))
    assert initialized["agentCapabilities"]["sessionCapabilities"]["fork"] == {}


async def test_session_fork_from_a_message(project: Path, env: dict[str, str]) -> None:
    """``session/fork`` with ``_meta.messageIndex``: the fork's conversation is the one before that message (the
    next request's history says so), its text comes back in ``_meta``; the source and the files are untouched."""
    with FakeGemini() as fake:
        env = {**env, "GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}
        fake.push(
            text_turn("one answered"),
            call_turn(("write_file", {"file_path": "src/new.py", "content": "print('new')\n"})),
            text_turn("two answered"),
            text_turn("the fork answers"),
        )
        editor = EditorClient()
        async with connect(editor, agent_argv(None, "--approval-mode", "auto_edit"), env, project) as conn:
            source = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await conn.prompt(session_id=source, prompt=[text_block("message one")])
            await conn.prompt(session_id=source, prompt=[text_block("message two")])

            rewind = "agent-lsp/rewind"
            listed = (await conn.ext_method(rewind, {"sessionId": source}))["messages"]
            second = listed[1]["messageId"]
            assert second and len({m["messageId"] for m in listed}) == 2  # every user message has its own id
            # By its id (the fork-at-message draft); the index stays the fallback.
            fork = await conn.fork_session(session_id=source, cwd=str(project), messageId=second)
            assert fork.field_meta == {"messageIndex": 1, "messageText": "message two", "messageId": second}
            assert (project / "src" / "new.py").exists()  # a fork never touches the files
            listing = await conn.ext_method(rewind, {"sessionId": fork.session_id})
            assert [m["text"] for m in listing["messages"]] == ["message one"]
            await conn.prompt(session_id=fork.session_id, prompt=[text_block("message two, changed")])
            assert user_texts(fake) == ["message one", "message two, changed"]
            listing = await conn.ext_method(rewind, {"sessionId": source})
            assert [m["text"] for m in listing["messages"]] == ["message one", "message two"]

            for bad, says in ((5, "no user message 5"), ("x", "messageIndex")):
                try:
                    await conn.fork_session(session_id=source, cwd=str(project), messageIndex=bad)
                except Exception as exc:  # the SDK raises the JSON-RPC error
                    assert says in str(exc) or says in str(getattr(exc, "data", ""))
                else:
                    raise AssertionError(f"a fork from message {bad!r} must fail")
        editor.checker.assert_clean()
    assert editor.checker.checked.get("ForkSessionResponse") == 1
    initialized = next(f["result"] for f in editor.checker.frames if "agentCapabilities" in f.get("result", {}))
    assert initialized["agentCapabilities"]["_meta"]["agent-lsp"]["forkFromMessage"] is True


async def test_rewind_covers_additional_directories(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    """A tool may write in every root, so rewind puts every root back: a file made and one edited in one of
    session/new's additionalDirectories come back as they were, beside the primary's, and undo returns them."""
    extra = tmp_path / "shared-lib"
    extra.mkdir()
    (extra / "lib.py").write_text("VALUE = 1\n")
    with FakeGemini() as fake:
        env = {**env, "GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}
        fake.push(
            call_turn(("replace", {"file_path": str(extra / "lib.py"), "old_string": "1", "new_string": "2"})),
            call_turn(("write_file", {"file_path": str(extra / "made.py"), "content": "x = 1\n"})),
            call_turn(("write_file", {"file_path": "src/new.py", "content": "print('new')\n"})),
            text_turn("done"),
        )
        editor = EditorClient()
        async with connect(editor, agent_argv(None, "--approval-mode", "auto_edit"), env, project) as conn:
            session = await conn.new_session(cwd=str(project), mcp_servers=[], additional_directories=[str(extra)])
            sid = session.session_id
            await conn.prompt(session_id=sid, prompt=[text_block("change both")])
            assert (extra / "lib.py").read_text() == "VALUE = 2\n" and (extra / "made.py").exists()
            rewind = "agent-lsp/rewind"
            done = await conn.ext_method(rewind, {"sessionId": sid, "messageIndex": 0})
            assert done["conflicts"] == []
            assert set(done["restore"]) == {str(extra.resolve() / "lib.py")}
            assert set(done["delete"]) == {"src/new.py", str(extra.resolve() / "made.py")}
            assert (extra / "lib.py").read_text() == "VALUE = 1\n"
            assert not (extra / "made.py").exists() and not (project / "src" / "new.py").exists()
            await conn.ext_method(rewind, {"sessionId": sid, "undo": True})
            assert (extra / "lib.py").read_text() == "VALUE = 2\n" and (extra / "made.py").exists()


async def test_restore_covers_additional_directories(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    """`/restore <id>` puts every root back like rewind does: the primary to the listed checkpoint, and an extra
    root of session/new's additionalDirectories to its own checkpoint taken before the same call."""
    extra = tmp_path / "shared-lib"
    extra.mkdir()
    (extra / "lib.py").write_text("VALUE = 1\n")
    with FakeGemini() as fake:
        env = {**env, "GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}
        fake.push(
            call_turn(("replace", {"file_path": str(extra / "lib.py"), "old_string": "1", "new_string": "2"})),
            call_turn(("write_file", {"file_path": str(extra / "made.py"), "content": "x = 1\n"})),
            call_turn(("write_file", {"file_path": "src/new.py", "content": "print('new')\n"})),
            text_turn("done"),
        )
        editor = EditorClient()
        async with connect(editor, agent_argv(None, "--approval-mode", "auto_edit"), env, project) as conn:
            session = await conn.new_session(cwd=str(project), mcp_servers=[], additional_directories=[str(extra)])
            sid = session.session_id

            async def said(text: str) -> str:
                seen = len(editor.updates(sid))
                await conn.prompt(session_id=sid, prompt=[text_block(text)])
                chunks = [u for u in editor.updates(sid)[seen:] if u["sessionUpdate"] == "agent_message_chunk"]
                return "".join(u["content"].get("text", "") for u in chunks)

            await conn.prompt(session_id=sid, prompt=[text_block("change both")])
            assert (extra / "lib.py").read_text() == "VALUE = 2\n" and (extra / "made.py").exists()
            ids = re.findall(r"^- `([^`]+)`", await said("/restore"), re.MULTILINE)
            assert len(ids) == 3  # one per file-changing call, as listed for the primary
            answer = await said(f"/restore {ids[0]}")
            assert f"checkpoint `{ids[0]}`" in answer and f"`{extra.resolve()}` restored too." in answer
            assert (extra / "lib.py").read_text() == "VALUE = 1\n"
            assert not (extra / "made.py").exists() and not (project / "src" / "new.py").exists()
