"""End to end: permission questions by both paths, and every file change as a versioned workspace edit."""

from __future__ import annotations

from typing import Any

from tests.acp_schema import validate
from tests.replay_lines import call_line, text_line

PERMISSIONS = {"agent": {"permissionRequests": True}}


def _tool_updates(editor: Any, status: str) -> list[dict[str, Any]]:
    return [u["update"] for u in editor.updates if u["update"].get("status") == status]


async def test_agent_request_permission_carries_the_diff_and_creates_the_file(launch: Any) -> None:
    editor = await launch(
        [call_line("write_file", {"file_path": "notes/new.txt", "content": "fresh\n"}), text_line("Created it.")],
        experimental=PERMISSIONS,
    )
    session = await editor.new_session()
    result = await editor.request("agent/prompt", {"sessionId": session, "prompt": "create notes/new.txt"})
    assert result["stopReason"] == "end_turn"
    (asked,) = editor.permission_requests
    validate("RequestPermissionRequest", asked)
    diff = asked["toolCall"]["content"][0]
    assert diff["type"] == "diff" and diff["oldText"] is None and diff["newText"] == "fresh\n"
    assert editor.message_requests == []
    (edit,) = editor.edits
    create, fill = edit["documentChanges"]
    assert create["kind"] == "create" and create["uri"].endswith("/notes/new.txt")
    assert fill["textDocument"]["version"] is None
    # The user approved it through the permission question: the editor must not ask a second time.
    assert edit["changeAnnotations"]["agent-lsp"]["needsConfirmation"] is False
    assert "new.txt" in edit["changeAnnotations"]["agent-lsp"]["label"]
    assert (editor.project / "notes" / "new.txt").read_text() == "fresh\n"


async def test_show_message_request_fallback_edits_the_open_buffer(launch: Any) -> None:
    editor = await launch(
        [
            call_line("replace", {"file_path": "app.py", "old_string": "return 1", "new_string": "return 2"}),
            text_line("Changed the value."),
        ]
    )
    path = editor.project / "app.py"
    on_disk = "import os\n\n\ndef value():\n    return 1\n\n\nprint(value())\n"
    path.write_text(on_disk)
    # The buffer has unsaved text the agent must work from (the disk copy differs).
    uri = editor.open(path, on_disk.replace("import os", "import os  # unsaved"))
    session = await editor.new_session()
    result = await editor.request("agent/prompt", {"sessionId": session, "prompt": "return 2 instead"})
    assert result["stopReason"] == "end_turn"
    (question,) = editor.message_requests
    assert [a["title"] for a in question["actions"]] == ["Allow once", "Allow all edits this session", "Reject"]
    assert "app.py" in question["message"]
    assert editor.client.shown_documents and editor.client.shown_documents[0].uri == uri
    (edit,) = editor.edits
    (doc_edit,) = edit["documentChanges"]
    assert doc_edit["textDocument"] == {"uri": uri, "version": 1}
    (text_edit,) = doc_edit["edits"]
    assert text_edit["range"] == {"start": {"line": 4, "character": 11}, "end": {"line": 4, "character": 12}}
    assert text_edit["newText"] == "2"
    assert editor.docs[uri].text == "import os  # unsaved\n\n\ndef value():\n    return 2\n\n\nprint(value())\n"
    assert path.read_text() == on_disk, "the server must not write a file the editor has open"
    # A client that knows nothing of agent/update still reads the answer.
    assert any("Changed the value." in m.message for m in editor.client.messages)


async def test_dismissed_question_stops_the_turn_and_nothing_changes(launch: Any) -> None:
    editor = await launch([call_line("write_file", {"file_path": "x.txt", "content": "no\n"})])
    editor.action_answer = None
    session = await editor.new_session()
    result = await editor.request("agent/prompt", {"sessionId": session, "prompt": "write x"})
    assert result["stopReason"] == "cancelled"
    assert editor.edits == []
    assert not (editor.project / "x.txt").exists()
    assert _tool_updates(editor, "failed")


async def test_buffer_changed_while_asking_is_refused_without_an_edit(launch: Any) -> None:
    editor = await launch(
        [
            call_line("replace", {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 10"}),
            text_line("ok"),
        ],
        experimental=PERMISSIONS,
    )
    path = editor.project / "a.py"
    path.write_text("x = 1\ny = 2\n")
    uri = editor.open(path)
    editor.before_answer = lambda: editor.type_into(uri, "x = 1\ny = 3\n")
    session = await editor.new_session()
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "x should be 10"})
    assert editor.edits == []
    (failed,) = _tool_updates(editor, "failed")
    assert "changed" in str(failed["content"])
    assert editor.docs[uri].text == "x = 1\ny = 3\n"
    assert path.read_text() == "x = 1\ny = 2\n"


async def test_stale_version_is_refused_by_the_editor_and_nothing_is_written(launch: Any) -> None:
    editor = await launch(
        [
            call_line("replace", {"file_path": "b.py", "old_string": "a", "new_string": "b"}),
            text_line("ok"),
        ]
    )
    path = editor.project / "b.py"
    path.write_text("a\n")
    uri = editor.open(path)
    # A keystroke the server has not heard of yet: the editor's version moved past the one in the edit.
    editor.before_apply = lambda: editor.type_into(uri, "a\n\n", tell_server=False)
    session = await editor.new_session(approvalMode="yolo")
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "a to b"})
    (edit,) = editor.edits
    assert edit["documentChanges"][0]["textDocument"]["version"] == 1
    assert "changeAnnotations" in edit and edit["changeAnnotations"]["agent-lsp"]["needsConfirmation"] is False
    (failed,) = _tool_updates(editor, "failed")
    assert "did not apply" in str(failed["content"])
    assert editor.docs[uri].text == "a\n\n"
    assert path.read_text() == "a\n"


async def test_client_without_apply_edit_gets_the_disk_written(launch: Any) -> None:
    editor = await launch(
        [call_line("write_file", {"file_path": "plain.txt", "content": "by the server\n"}), text_line("done")],
        capabilities={"window": {"workDoneProgress": True}},
    )
    session = await editor.new_session(approvalMode="yolo")
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "write it"})
    assert editor.edits == []
    assert (editor.project / "plain.txt").read_text() == "by the server\n"


async def test_reads_and_search_see_unsaved_buffers(launch: Any) -> None:
    editor = await launch(
        [call_line("grep_search", {"pattern": "needle_in_buffer"}), text_line("found")],
    )
    path = editor.project / "hay.py"
    path.write_text("nothing here\n")
    editor.open(path, "needle_in_buffer = 1\n")
    session = await editor.new_session()
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "find the needle"})
    (done,) = _tool_updates(editor, "completed")
    assert "Found 1 match" in str(done["content"])  # only the unsaved buffer has it


async def test_failed_permission_request_rejects_and_is_logged(launch: Any) -> None:
    editor = await launch([call_line("write_file", {"file_path": "y.txt", "content": "y\n"})], experimental=PERMISSIONS)
    editor.permission_answer = "fail"
    session = await editor.new_session()
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "write y"})
    assert editor.edits == [] and not (editor.project / "y.txt").exists()
    logged = [m.message for m in editor.client.log_messages]
    assert any("agent/requestPermission failed" in m for m in logged), logged


async def test_an_edited_proposal_is_what_gets_applied(launch: Any) -> None:
    """The user edits the proposal in the review before accepting: that text is applied, not the model's."""
    editor = await launch(
        [call_line("write_file", {"file_path": "greet.py", "content": "print('hi')\n"}), text_line("Written.")],
        experimental=PERMISSIONS,
    )
    editor.permission_meta = {"modifiedContent": "print('hello, reviewed')\n"}
    session = await editor.new_session()
    result = await editor.request("agent/prompt", {"sessionId": session, "prompt": "write greet.py"})
    assert result["stopReason"] == "end_turn"
    assert (editor.project / "greet.py").read_text() == "print('hello, reviewed')\n"
    done = _tool_updates(editor, "completed")
    assert any(c.get("newText") == "print('hello, reviewed')\n" for u in done for c in u.get("content", []))
