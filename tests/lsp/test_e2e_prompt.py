"""End to end over a real subprocess: prompts stream agent/update, with progress begin/report/end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.acp_schema import validate
from tests.replay_lines import call_line, text_line


async def test_prompt_streams_updates_and_progress(launch: Any, tmp_path: Path) -> None:
    editor = await launch(
        [
            call_line("list_directory", {"dir_path": "."}, thought="Looking around"),
            text_line("The project ", "has one file."),
        ]
    )
    (editor.project / "main.py").write_text("print('hi')\n")
    session = await editor.new_session()
    result = await editor.request("agent/prompt", {"sessionId": session, "prompt": "what is in this project?"})
    assert result == {"stopReason": "end_turn"}
    for update in editor.updates:
        assert update["sessionId"] == session
        validate("SessionUpdate", update["update"])
    kinds = editor.kinds()
    assert "agent_thought_chunk" in kinds and "tool_call" in kinds
    assert editor.messages() == "The project has one file."
    completed = [u["update"] for u in editor.updates if u["update"].get("status") == "completed"]
    assert completed and completed[0]["toolCallId"] == "call-list_directory"

    (_token, reports), *_ = editor.client.progress_reports.items()
    assert reports[0].kind == "begin" and reports[0].title == "Agent: what is in this project?"
    assert reports[0].cancellable is True
    messages = [r.message for r in reports if r.kind == "report"]
    assert reports[0].message == "Working on: what is in this project?"
    assert "Thinking: Looking around" in messages
    assert any(m.startswith("Running list_directory") for m in messages)
    assert reports[-1].kind == "end" and reports[-1].message == "Done: The project has one file."


async def test_client_work_done_token_is_used_without_create(launch: Any) -> None:
    editor = await launch([text_line("ok")])
    session = await editor.new_session()
    editor.client.progress_reports["mine"] = []
    result = await editor.request("agent/prompt", {"sessionId": session, "prompt": "hi", "workDoneToken": "mine"})
    assert result["stopReason"] == "end_turn"
    assert list(editor.client.progress_reports) == ["mine"]
    assert [r.kind for r in editor.client.progress_reports["mine"]] == ["begin", "report", "end"]


async def test_new_session_describes_modes_models_and_commands(launch: Any) -> None:
    editor = await launch([])
    result = await editor.request(
        "agent/newSession", {"cwd": str(editor.project), "approvalMode": "plan", "model": "m-1"}
    )
    assert result["modes"]["currentModeId"] == "plan"
    assert {m["id"] for m in result["modes"]["availableModes"]} == {"default", "auto_edit", "yolo", "plan"}
    assert result["models"]["currentModelId"] == "m-1"
    assert any(c["name"] == "memory" for c in result["commands"])
    # unknown sessions and bad modes are errors the editor can show
    try:
        await editor.request("agent/setMode", {"sessionId": result["sessionId"], "modeId": "reckless"})
    except Exception as exc:
        assert "modeId" in str(exc)
    else:
        raise AssertionError("bad mode accepted")
    assert await editor.request("agent/setMode", {"sessionId": result["sessionId"], "modeId": "auto_edit"}) == {}
    assert editor.updates[-1]["update"] == {"sessionUpdate": "current_mode_update", "currentModeId": "auto_edit"}
    switched = await editor.request("agent/setModel", {"sessionId": result["sessionId"], "modelId": "m-2"})
    assert switched["models"]["currentModelId"] == "m-2"  # the picker's new state (a provider switch changes it)
