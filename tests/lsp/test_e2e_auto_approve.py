"""``agent/autoApprove`` over a real LSP server subprocess: a kind switched on runs without a question, a shell
line that writes a file is still asked, a workspace switch is saved in the user's per-project state (never in the
folder) and holds for the next session there, and an untrusted folder refuses the switches with the reason."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_lsp.config.paths import project_id
from tests.replay_lines import call_line, text_line

PERMISSIONS = {"agent": {"permissionRequests": True}}


def _scopes(state: dict[str, Any]) -> dict[str, str]:
    return {k["kind"]: k["scope"] for k in state["kinds"]}


async def test_switches_allow_a_kind_for_the_session_and_the_workspace(launch: Any) -> None:
    editor = await launch(
        [
            call_line("run_shell_command", {"command": "echo hi"}),
            text_line("ran"),
            call_line("run_shell_command", {"command": "echo hi > out.txt"}),
            text_line("asked first"),
            call_line("write_file", {"file_path": "made.txt", "content": "made\n"}),
            text_line("written"),
        ],
        experimental=PERMISSIONS,
    )
    session = await editor.new_session()
    state = await editor.request("agent/autoApprove", {"sessionId": session})
    assert state["available"] and set(_scopes(state).values()) == {"off"}
    assert list(_scopes(state)) == ["read", "edit", "shell", "mcp", "web"]

    state = await editor.request("agent/autoApprove", {"sessionId": session, "kind": "shell", "scope": "session"})
    assert _scopes(state)["shell"] == "session"
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "say hi"})
    assert editor.permission_requests == []  # run without a question
    # A line that writes a file is still seen: the switch allows what a "run it" rule would, no more.
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "save hi"})
    assert len(editor.permission_requests) == 1

    state = await editor.request("agent/autoApprove", {"sessionId": session, "kind": "edit", "scope": "workspace"})
    assert _scopes(state)["edit"] == "workspace"
    saved = editor.project.parent / "state" / "projects" / project_id(editor.project) / "auto-approve.json"
    assert json.loads(saved.read_text()) == {"kinds": ["edit"]}
    assert not list(editor.project.rglob("auto-approve.json"))  # never written into the workspace

    later = await editor.new_session()
    state = await editor.request("agent/autoApprove", {"sessionId": later})
    assert _scopes(state) == {"read": "off", "edit": "workspace", "shell": "off", "mcp": "off", "web": "off"}
    await editor.request("agent/prompt", {"sessionId": later, "prompt": "make it"})
    assert len(editor.permission_requests) == 1 and (editor.project / "made.txt").read_text() == "made\n"

    state = await editor.request("agent/autoApprove", {"sessionId": later, "kind": "edit", "scope": "off"})
    assert _scopes(state)["edit"] == "off" and not saved.exists()
    # A workspace change holds for the folder's other open sessions too.
    assert _scopes(await editor.request("agent/autoApprove", {"sessionId": session}))["edit"] == "off"
    with pytest.raises(Exception, match="unknown auto-approve kind 'disk'"):
        await editor.request("agent/autoApprove", {"sessionId": later, "kind": "disk", "scope": "session"})
    with pytest.raises(Exception, match="scope must be one of off, session, workspace"):
        await editor.request("agent/autoApprove", {"sessionId": later, "kind": "edit", "scope": "forever"})


async def test_an_untrusted_folder_refuses_the_switches(launch: Any) -> None:
    editor = await launch(
        [call_line("run_shell_command", {"command": "echo hi"}), text_line("asked")],
        experimental=PERMISSIONS,
        extra_env={"AGENT_LSP_TRUST_WORKSPACE": "false"},
    )
    # Even a switch saved for this folder earlier (while it was trusted) is not honoured now.
    saved = editor.project.parent / "state" / "projects" / project_id(editor.project) / "auto-approve.json"
    saved.parent.mkdir(parents=True)
    saved.write_text('{"kinds": ["shell"]}')
    session = await editor.new_session()
    state = await editor.request("agent/autoApprove", {"sessionId": session})
    assert not state["available"] and "not trusted" in state["reason"]
    assert set(_scopes(state).values()) == {"off"}
    with pytest.raises(Exception, match="not trusted"):
        await editor.request("agent/autoApprove", {"sessionId": session, "kind": "shell", "scope": "session"})
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "say hi"})
    assert len(editor.permission_requests) == 1
