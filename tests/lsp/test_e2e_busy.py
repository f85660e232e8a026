"""End to end: a second agent/prompt on a busy session is refused like ACP refuses it, and the first prompt
keeps its cancel handle (the refusal used to clear it and end in an internal error)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.lsp.conftest import until
from tests.replay_lines import call_line, text_line

SLEEP = call_line("run_shell_command", {"command": "sleep 30", "description": "wait"})


async def test_second_prompt_is_busy_and_the_first_stays_cancellable(launch: Any) -> None:
    editor = await launch([SLEEP, text_line("free again")])
    session = await editor.new_session(approvalMode="yolo")
    protocol = editor.client.protocol
    # Both sent at once: the second arrives while the first is still setting up its progress bar.
    first = protocol.send_request("agent/prompt", {"sessionId": session, "prompt": "wait"}, msg_id="first")
    second = protocol.send_request("agent/prompt", {"sessionId": session, "prompt": "again"}, msg_id="second")
    with pytest.raises(JsonRpcException) as refused:
        await asyncio.wait_for(asyncio.wrap_future(second), 10)
    assert refused.value.code == -32600
    assert "already running" in refused.value.message and "cancel it first" in refused.value.message

    await until(lambda: any(u["update"].get("status") == "in_progress" for u in editor.updates))
    protocol.notify("$/cancelRequest", types.CancelParams(id="first"))
    result = await asyncio.wait_for(asyncio.wrap_future(first), 10)
    assert result["stopReason"] == "cancelled"

    # The session is free again.
    again = await asyncio.wait_for(editor.request("agent/prompt", {"sessionId": session, "prompt": "more"}), 10)
    assert again["stopReason"] == "end_turn"


async def test_an_unknown_session_is_not_found_with_the_shared_code(launch: Any) -> None:
    """Both servers answer "not found" -32002 (adapters/wire.CODES); a bad mode is invalid params naming the field."""
    editor = await launch([text_line("unused")])
    for method, params in (
        ("agent/prompt", {"sessionId": "no-such", "prompt": "hi"}),
        ("agent/setMode", {"sessionId": "no-such", "modeId": "plan"}),
        ("agent/loadSession", {"sessionId": "0123456789abcdef"}),
    ):
        with pytest.raises(JsonRpcException) as missing:
            await asyncio.wait_for(editor.request(method, params), 10)
        assert missing.value.code == -32002, method
    session = await editor.new_session()
    with pytest.raises(JsonRpcException) as bad:
        await asyncio.wait_for(editor.request("agent/setMode", {"sessionId": session, "modeId": "turbo"}), 10)
    assert bad.value.code == -32602 and "modeId must be one of default, auto_edit, yolo, plan" in bad.value.message


async def test_editor_settings_change_model_and_mode_of_running_sessions(launch: Any, tmp_path: Path) -> None:
    """workspace/didChangeConfiguration moves open sessions to the editor's model (the picker's switch) and mode."""
    target = tmp_path / "project" / "plan-mode-forbids.txt"
    write = call_line("write_file", {"file_path": str(target), "content": "no"})
    editor = await launch([write, text_line("done")])
    session = await editor.new_session()
    settings = {"agentLsp": {"model": "gemini-2.5-flash", "approvalMode": "plan"}}
    editor.notify("workspace/didChangeConfiguration", types.DidChangeConfigurationParams(settings=settings))
    await asyncio.wait_for(editor.request("agent/prompt", {"sessionId": session, "prompt": "/stats"}), 10)
    assert "Model: gemini-2.5-flash" in editor.messages()
    result = await asyncio.wait_for(editor.request("agent/prompt", {"sessionId": session, "prompt": "write"}), 10)
    assert result["stopReason"] == "end_turn"
    assert not target.exists()  # plan mode: the edit never ran


async def test_checkpointing_follows_the_editors_setting_per_session(launch: Any) -> None:
    """The editor's checkpointing choice goes into each new session's setup (the runtime is never patched):
    on by default in editors, off once the editor says so, for sessions made after that."""
    editor = await launch([])
    first = await editor.new_session()
    await asyncio.wait_for(editor.request("agent/prompt", {"sessionId": first, "prompt": "/restore"}), 10)
    assert "Checkpoints are off" not in editor.messages()
    settings = {"agentLsp": {"checkpointing": False}}
    editor.notify("workspace/didChangeConfiguration", types.DidChangeConfigurationParams(settings=settings))
    second = await editor.new_session()
    await asyncio.wait_for(editor.request("agent/prompt", {"sessionId": second, "prompt": "/restore"}), 10)
    assert "Checkpoints are off" in editor.messages()
