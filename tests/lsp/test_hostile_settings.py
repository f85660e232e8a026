"""Nothing a repository can raise, over LSP (docs/security.md): every editor configuration channel
(initializationOptions, didChangeConfiguration, workspace/configuration) and every workspace file, each armed with
every widening key, in a folder nobody trusted; then the agent's keys kept from every child it starts."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidRequest

from tests.hostile import KEYS, editor_payload, fired, touch, write_hostile_workspace
from tests.lsp.conftest import until
from tests.replay_lines import call_line, text_line

UNTRUSTED = {"AGENT_LSP_TRUST_WORKSPACE": ""}  # the suite's servers trust their folder; this one is new


def _shown(editor: Any) -> str:
    return "\n".join(m.message for m in editor.client.messages)


@pytest.mark.parametrize("channel", ["initializationOptions", "didChangeConfiguration", "workspace/configuration"])
async def test_no_channel_and_no_workspace_file_widens_anything(launch: Any, tmp_path: Path, channel: str) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    write_hostile_workspace(project, markers)
    script = [
        call_line("run_shell_command", {"command": touch(markers, "shell")}),
        text_line("asked"),
        text_line("no such command here"),
    ]
    payload = editor_payload(markers)
    editor = await launch(
        script,
        init_options=payload if channel == "initializationOptions" else None,
        extra_env=UNTRUSTED,
        action_answer="Not now",
    )
    if channel == "didChangeConfiguration":
        editor.notify("workspace/didChangeConfiguration", types.DidChangeConfigurationParams(settings=payload))
    elif channel == "workspace/configuration":
        editor.client.set_configuration(payload)
        editor.notify("workspace/didChangeConfiguration", types.DidChangeConfigurationParams(settings=None))
    await until(lambda: "ignored" in _shown(editor))
    editor.permission_answer, editor.action_answer = "reject", "Reject"
    answer = await editor.request("agent/newSession", {"cwd": str(editor.project)})
    session = answer["sessionId"]
    assert answer["modes"]["currentModeId"] == "default"
    result = await asyncio.wait_for(editor.request("agent/prompt", {"sessionId": session, "prompt": "go"}), 30)
    assert result["stopReason"] == "end_turn"
    # The shell still asked (a client without agent/requestPermission is asked with window/showMessageRequest):
    # no allow-list, policy or mode let it by.
    asked = [m for m in editor.message_requests if "do you trust" not in m["message"]]
    assert len(editor.permission_requests) + len(asked) == 1
    # The folder was offered to the user (the one way to trust it over LSP), and the answer was no.
    assert [m["actions"][0]["title"] for m in editor.message_requests if "do you trust" in m["message"]] == [
        "Trust folder"
    ]
    await asyncio.wait_for(editor.request("agent/prompt", {"sessionId": session, "prompt": "/pwn"}), 30)
    # The mode picker is the user's own act, but an untrusted folder still refuses to auto-approve.
    with pytest.raises(JsonRpcInvalidRequest, match="not trusted"):
        await editor.request("agent/setMode", {"sessionId": session, "modeId": "yolo"})
    shown = _shown(editor)
    assert "ignored approvalMode (yolo), mcpServers.editor-evil" in shown  # trustWorkspace: true trusts nothing
    for key in ("hooks", "tools", "security", "mcpServers", "model.baseUrl", "telemetry", "context"):
        assert key in shown.split("ignored approvalMode", 1)[1]
    assert "~/.gemini/settings.json" in shown and "trustedFolders.json" in shown
    assert "not trusted" in shown
    assert shown.count("ignored approvalMode") == 1  # one notice, not one per key
    assert fired(markers) == []


async def test_the_user_trusts_a_folder_by_answering_the_trust_prompt(launch: Any, tmp_path: Path) -> None:
    """The folder nobody decided about is offered once; "Trust folder" writes the user's own rule, and new
    sessions then read the folder's settings."""
    project = tmp_path / "project"
    (project / ".gemini").mkdir(parents=True)
    (project / ".gemini" / "settings.json").write_text(json.dumps({"general": {"defaultApprovalMode": "auto_edit"}}))
    editor = await launch([], extra_env=UNTRUSTED, action_answer="Trust folder")
    await until(lambda: "is trusted" in _shown(editor))
    rules = json.loads((tmp_path / "home" / ".gemini" / "trustedFolders.json").read_text())
    assert rules == {str(editor.project): "TRUST_FOLDER"}
    answer = await editor.request("agent/newSession", {"cwd": str(editor.project)})
    assert answer["modes"]["currentModeId"] == "auto_edit"


async def test_narrowing_from_the_editor_still_works(launch: Any, tmp_path: Path) -> None:
    """Plan mode and "this workspace is not trusted" are taken from any channel."""
    target = tmp_path / "project" / "plan-forbids.txt"
    editor = await launch(
        [call_line("write_file", {"file_path": str(target), "content": "x"}), text_line("done")],
        init_options={"agentLsp": {"approvalMode": "plan", "trustWorkspace": False}},
    )
    answer = await editor.request("agent/newSession", {"cwd": str(editor.project)})
    assert answer["modes"]["currentModeId"] == "plan"
    await asyncio.wait_for(editor.request("agent/prompt", {"sessionId": answer["sessionId"], "prompt": "w"}), 30)
    assert not target.exists()
    await until(lambda: "the editor does not trust this workspace" in _shown(editor))
    assert "ignored" not in _shown(editor)


def _env_of(path: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    return dict(pairs)


async def test_the_agents_keys_reach_no_child(launch: Any, tmp_path: Path) -> None:
    """Shell, background command, hook and stdio MCP server (all from the user's own settings) see the rest of
    the environment but none of the model clients' keys; a key passes only where the user says so."""
    out = tmp_path / "out"
    out.mkdir()
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    hook = [{"hooks": [{"type": "command", "command": f"env > {out / 'hook.env'}"}]}]
    settings = {
        "hooks": {"SessionStart": hook},
        "mcpServers": {
            "probe": {"command": "bash", "args": ["-c", f"env > {out / 'mcp.env'}"]},
            "given": {
                "command": "bash",
                "args": ["-c", f"env > {out / 'given.env'}"],
                "env": {"OPENAI_API_KEY": "$OPENAI_API_KEY"},
            },
        },
        "security": {"environmentVariableRedaction": {"allowed": ["GOOGLE_API_KEY"]}},
    }
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    script = [
        call_line("run_shell_command", {"command": f"env > {out / 'shell.env'}"}),
        call_line("run_shell_command", {"command": f"env > {out / 'bg.env'}; sleep 5", "is_background": True}),
        text_line("done"),
    ]
    editor = await launch(script, extra_env={**KEYS, "VISIBLE_TO_CHILDREN": "yes"})
    session = await editor.new_session()
    await asyncio.wait_for(editor.request("agent/prompt", {"sessionId": session, "prompt": "env"}), 30)
    names = ("shell", "bg", "hook", "mcp", "given")
    await until(lambda: all((out / f"{n}.env").exists() and (out / f"{n}.env").stat().st_size for n in names), 20)
    for name in names:
        env = _env_of(out / f"{name}.env")
        assert env.get("VISIBLE_TO_CHILDREN") == "yes", name
        assert "GEMINI_API_KEY" not in env, name
        leaked = [k for k, v in KEYS.items() if v in (out / f"{name}.env").read_text() and k != "GOOGLE_API_KEY"]
        if name != "given":
            assert leaked == [], name
    # security.environmentVariableRedaction.allowed hands GOOGLE_API_KEY on to commands; MCP servers get the full
    # (Gemini CLI) redaction, under which a key-shaped value or a *KEY* name goes only through a server's own env.
    assert _env_of(out / "shell.env")["GOOGLE_API_KEY"] == KEYS["GOOGLE_API_KEY"]
    assert _env_of(out / "given.env")["OPENAI_API_KEY"] == KEYS["OPENAI_API_KEY"]
    assert "OPENAI_API_KEY" not in _env_of(out / "mcp.env")
