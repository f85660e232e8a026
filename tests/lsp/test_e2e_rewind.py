"""End to end over LSP (a real server subprocess): ``agent/rewind`` lists, previews, rewinds and undoes after a
two-edit conversation; the disk is checked, the user's own file kept and a conflict reported."""

from __future__ import annotations

from typing import Any

import pytest

from tests.replay_lines import call_line, text_line


async def test_agent_rewind_over_lsp(launch: Any) -> None:
    editor = await launch(
        [
            call_line("replace", {"file_path": "app.py", "old_string": "one", "new_string": "uno"}),
            text_line("first done"),
            call_line("write_file", {"file_path": "notes/new.txt", "content": "fresh\n"}),
            text_line("second done"),
            text_line("after"),
        ],
        init_options={"agentLsp": {"approvalMode": "auto_edit"}},
    )
    app = editor.project / "app.py"
    app.write_text("one\n")
    session = await editor.new_session()
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "first"})
    (editor.project / "mine.txt").write_text("mine\n")
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "second"})
    assert (editor.project / "notes" / "new.txt").exists() and app.read_text() == "uno\n"

    listing = await editor.request("agent/rewind", {"sessionId": session})
    assert [m["text"] for m in listing["messages"]] == ["first", "second"]
    preview = await editor.request("agent/rewind", {"sessionId": session, "messageIndex": 0, "dryRun": True})
    assert (preview["restore"], preview["delete"]) == (["app.py"], ["notes/new.txt"])

    done = await editor.request("agent/rewind", {"sessionId": session, "messageIndex": 0})
    assert done["text"] == "first" and done["canUndo"]
    assert app.read_text() == "one\n" and not (editor.project / "notes").exists()
    assert (editor.project / "mine.txt").read_text() == "mine\n"

    undone = await editor.request("agent/rewind", {"sessionId": session, "undo": True})
    reverted = await editor.request("agent/rewind", {"sessionId": session, "messageIndex": 1, "revertTurn": True})
    assert reverted["delete"] == ["notes/new.txt"] and app.read_text() == "uno\n"
    assert [m["text"] for m in (await editor.request("agent/rewind", {"sessionId": session}))["messages"]] == [
        "first",
        "second",
    ]
    assert undone["messageIndex"] == 0 and app.read_text() == "uno\n"
    app.write_text("my own\n")
    again = await editor.request("agent/rewind", {"sessionId": session, "messageIndex": 0})
    assert again["conflicts"] == ["app.py"] and app.read_text() == "my own\n"
    listing = await editor.request("agent/rewind", {"sessionId": session})
    assert listing["messages"] == [] and listing["canUndo"]

    with pytest.raises(Exception, match="messageIndex must be a number"):
        await editor.request("agent/rewind", {"sessionId": session, "messageIndex": "x"})


async def test_agent_fork_over_lsp(launch: Any) -> None:
    editor = await launch(
        [
            call_line("write_file", {"file_path": "made.txt", "content": "made\n"}),
            text_line("made it"),
            text_line("in the fork"),
        ],
    )
    source = await editor.new_session(approvalMode="auto_edit")  # the user's own choice, in the chat's request
    await editor.request("agent/prompt", {"sessionId": source, "prompt": "make it"})
    forked = await editor.request("agent/fork", {"sessionId": source})
    fork = forked["sessionId"]
    assert fork != source and forked["modes"]["currentModeId"] == "auto_edit"
    listing = await editor.request("agent/rewind", {"sessionId": fork})
    assert [m["text"] for m in listing["messages"]] == ["make it"]
    await editor.request("agent/prompt", {"sessionId": fork, "prompt": "go on"})
    assert [m["text"] for m in (await editor.request("agent/rewind", {"sessionId": source}))["messages"]] == ["make it"]
    done = await editor.request("agent/rewind", {"sessionId": fork, "messageIndex": 0})
    assert done["delete"] == ["made.txt"] and not (editor.project / "made.txt").exists()


async def test_agent_fork_from_a_message_over_lsp(launch: Any) -> None:
    editor = await launch(
        [text_line("one answered"), text_line("two answered"), text_line("the fork answers")],
        init_options={"agentLsp": {"approvalMode": "auto_edit"}},
    )
    source = await editor.new_session()
    await editor.request("agent/prompt", {"sessionId": source, "prompt": "one"})
    await editor.request("agent/prompt", {"sessionId": source, "prompt": "two"})
    forked = await editor.request("agent/fork", {"sessionId": source, "messageIndex": 1})
    assert (forked["messageIndex"], forked["messageText"]) == (1, "two")
    listing = await editor.request("agent/rewind", {"sessionId": forked["sessionId"]})
    assert [m["text"] for m in listing["messages"]] == ["one"]
    listing = await editor.request("agent/rewind", {"sessionId": source})
    assert [m["text"] for m in listing["messages"]] == ["one", "two"]
    with pytest.raises(Exception, match="no user message 2"):
        await editor.request("agent/fork", {"sessionId": source, "messageIndex": 2})
