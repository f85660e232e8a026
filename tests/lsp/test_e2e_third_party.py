"""End to end: the quirks of third-party LSP clients (vim-lsp, Eglot), each simulated over a real subprocess.

vim-lsp reports an applied edit only with the didChange of the next keystroke and edits in the version-less
``changes`` form; Eglot answers ``workspace/configuration`` with null and gives up on a request after 10 s;
vim-lsp asks for code actions with ``only: ["", ...]``. Editors also add and remove workspace folders.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from agent_lsp.adapters.lsp.documents import path_to_uri
from tests.lsp.conftest import until
from tests.replay_lines import call_line, text_line

# What vim-lsp announces: applyEdit and configuration, no workspaceEdit block (so no documentChanges).
VIM_LSP_CAPS: dict[str, Any] = {
    "workspace": {"applyEdit": True, "configuration": True},
    "window": {"workDoneProgress": True},
}
# Eglot: documentChanges, no change annotations, progress.
EGLOT_CAPS: dict[str, Any] = {
    "workspace": {"applyEdit": True, "configuration": True, "workspaceEdit": {"documentChanges": True}},
    "window": {"workDoneProgress": True, "showDocument": {"support": True}},
}
EGLOT_TIMEOUT_S = 10.0  # jsonrpc-default-request-timeout: how long Eglot waits for an answer


def _replace(path: str, old: str, new: str) -> dict[str, Any]:
    return call_line("replace", {"file_path": path, "old_string": old, "new_string": new})


def _statuses(editor: Any) -> list[str]:
    return [u["update"]["status"] for u in editor.updates if u["update"].get("status") in ("completed", "failed")]


@pytest.mark.parametrize("mode", ["auto_edit", "default"])
async def test_late_did_change_two_edits_in_one_turn_land_right(launch: Any, mode: str) -> None:
    editor = await launch(
        [
            # The first edit adds a line, so an edit computed from the pre-edit text lands a line too high.
            _replace("two.py", "a = 1", "a = 10\nc = 30"),
            _replace("two.py", "b = 2", "b = 20"),
            text_line("Both changed."),
            _replace("two.py", "a = 10", "a = 11"),
            text_line("Changed again."),
        ],
        capabilities=VIM_LSP_CAPS,
    )
    editor.report_applied_edits = False  # vim-lsp: no didChange until the user's next keystroke
    path = editor.project / "two.py"
    path.write_text("def other():\n    pass\n\na = 1\nb = 2\n")
    uri = editor.open(path)
    session = await editor.new_session(approvalMode=mode)
    result = await editor.request("agent/prompt", {"sessionId": session, "prompt": "a to 10, b to 20"})
    assert result["stopReason"] == "end_turn"
    assert _statuses(editor) == ["completed", "completed"]
    assert [list(e) for e in editor.edits] == [["changes"], ["changes"]]  # vim-lsp gets the version-less form
    assert editor.docs[uri].text == "def other():\n    pass\n\na = 10\nc = 30\nb = 20\n"
    assert len(editor.message_requests) == (2 if mode == "default" else 0)

    # The next keystroke: one didChange from what the server was last told to the buffer as it is now.
    editor.send_late_change(uri)
    editor.updates.clear()
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "now 11"})
    assert _statuses(editor) == ["completed"]
    assert editor.docs[uri].text == "def other():\n    pass\n\na = 11\nc = 30\nb = 20\n"
    assert path.read_text() == "def other():\n    pass\n\na = 1\nb = 2\n"  # the buffer is unsaved


async def test_a_versioned_client_silent_after_an_edit_gets_the_next_one_without_a_version(launch: Any) -> None:
    """Eglot reports an applied edit only once Emacs sees input again, and refuses an edit for a version it
    has moved past: the next edit goes without a version, computed from the text the first one made."""
    script = [_replace("e.py", "a = 1", "a = 10\nc = 30"), _replace("e.py", "b = 2", "b = 20"), text_line("ok")]
    editor = await launch(script, capabilities=EGLOT_CAPS)
    editor.report_applied_edits = False
    path = editor.project / "e.py"
    path.write_text("a = 1\nb = 2\n")
    uri = editor.open(path)
    session = await editor.new_session(approvalMode="auto_edit")
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "both"})
    assert _statuses(editor) == ["completed", "completed"]
    first, second = editor.edits
    assert first["documentChanges"][0]["textDocument"] == {"uri": uri, "version": 1}
    assert list(second) == ["changes"]
    assert editor.docs[uri].text == "a = 10\nc = 30\nb = 20\n"


async def test_command_is_answered_at_once_while_the_question_waits(launch: Any) -> None:
    """Eglot waits 10 s for workspace/executeCommand: the turn (and its permission question) runs on after."""
    script = [_replace("calc.py", "a - b", "a + b"), text_line("Fixed: it adds now.")]
    editor = await launch(script, capabilities=EGLOT_CAPS)
    path = editor.project / "calc.py"
    path.write_text("def add(a, b):\n    return a - b\n")
    uri = editor.open(path)
    editor.answer_gate = asyncio.Event()  # the user has not answered yet
    rng = {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 16}}
    diag = {"range": rng, "message": "wrong operator", "severity": 1}
    args = [{"uri": uri, "range": rng, "diagnostics": [diag]}]
    answer = await asyncio.wait_for(
        editor.client.workspace_execute_command_async(types.ExecuteCommandParams("agent.fix", args)),
        EGLOT_TIMEOUT_S,
    )
    assert answer is None
    await until(lambda: len(editor.message_requests) == 1)  # the question is still open
    assert editor.edits == []
    editor.answer_gate.set()
    await until(lambda: any(m.message == "Fixed: it adds now." for m in editor.client.messages))
    assert editor.docs[uri].text == "def add(a, b):\n    return a + b\n"
    # Progress told the story meanwhile: what was asked, the approval wait, the tool, the end.
    ((_token, reports),) = editor.client.progress_reports.items()
    assert reports[0].kind == "begin" and "wrong operator" in (reports[0].message or "")
    messages = [r.message or "" for r in reports[1:]]
    assert any("Waiting for your approval" in m and "calc.py" in m for m in messages), messages
    assert reports[-1].kind == "end" and "Fixed: it adds now." in (reports[-1].message or "")


async def test_null_configuration_is_no_settings(launch: Any) -> None:
    editor = await launch([], capabilities=EGLOT_CAPS)
    asked: list[Any] = []
    answer = editor.client.get_configuration

    def recording(**kwargs: Any) -> Any:
        asked.append(kwargs)
        return answer(**kwargs)  # nothing set: null, as Eglot answers

    editor.client.get_configuration = recording  # type: ignore[method-assign]
    # Eglot's didChangeConfiguration on connect carries no settings, so the server pulls them.
    editor.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await until(lambda: bool(asked))
    session = await editor.new_session()
    assert session
    assert [m.message for m in editor.client.messages if "Settings" in m.message] == []


async def test_empty_kind_in_only_asks_for_every_action(launch: Any) -> None:
    editor = await launch([], capabilities=VIM_LSP_CAPS)
    path = editor.project / "m.py"
    path.write_text("x = 1\n")
    uri = editor.open(path)
    rng = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 5}}
    diag = {"range": rng, "message": "unused", "severity": 2}
    only = ["", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite"]  # vim-lsp's
    actions = await editor.raw_request(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": rng, "context": {"diagnostics": [diag], "only": only}},
    )
    titles = [a["title"] for a in actions]
    assert titles == ["Fix with agent: unused", "Explain with agent", "Edit selection with agent…"]
    quickfix_only = await editor.raw_request(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": rng, "context": {"diagnostics": [diag], "only": ["quickfix"]}},
    )
    assert [a["title"] for a in quickfix_only] == ["Fix with agent: unused"]


async def test_workspace_roots_follow_the_editors_folders(launch: Any, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("from the other folder\n")
    read = call_line("read_file", {"file_path": str(other / "notes.txt")})
    read_own = call_line("read_file", {"file_path": "own.txt"})
    editor = await launch(
        [
            read,
            text_line("1"),
            read,
            text_line("2"),
            read,
            text_line("3"),
            read,
            text_line("4"),
            read_own,
            text_line("5"),
        ]
    )
    (editor.project / "own.txt").write_text("the session's own folder\n")
    first = await editor.new_session()
    await editor.request("agent/prompt", {"sessionId": first, "prompt": "read it"})
    assert _statuses(editor) == ["failed"]  # not a root yet

    folder = types.WorkspaceFolder(path_to_uri(other), "other")
    change = editor.client.workspace_did_change_workspace_folders
    change(types.DidChangeWorkspaceFoldersParams(types.WorkspaceFoldersChangeEvent(added=[folder], removed=[])))
    for session in (first, await editor.new_session()):  # the running session and a new one
        editor.updates.clear()
        await editor.request("agent/prompt", {"sessionId": session, "prompt": "read it"})
        assert _statuses(editor) == ["completed"]

    change(types.DidChangeWorkspaceFoldersParams(types.WorkspaceFoldersChangeEvent(added=[], removed=[folder])))
    editor.updates.clear()
    await editor.request("agent/prompt", {"sessionId": first, "prompt": "read it"})
    assert _statuses(editor) == ["failed"]
    assert "outside the workspace" in str(editor.updates)

    # A session's own folder stays its root even when the editor closes that folder.
    project = types.WorkspaceFolder(path_to_uri(editor.project), "project")
    change(types.DidChangeWorkspaceFoldersParams(types.WorkspaceFoldersChangeEvent(added=[], removed=[project])))
    editor.updates.clear()
    await editor.request("agent/prompt", {"sessionId": first, "prompt": "read own.txt"})
    assert _statuses(editor) == ["completed"]
