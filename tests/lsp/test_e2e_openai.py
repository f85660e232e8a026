"""End to end over LSP with an OpenAI-compatible endpoint: `agent-lsp lsp` in a subprocess, the fake OpenAI server as
the model (through the real ``openai`` SDK), edits approved by the editor and applied as workspace edits."""

from __future__ import annotations

from typing import Any

from tests.acp_schema import validate
from tests.fakes.fake_openai import FakeOpenAI, text_turn, tool_turn

PERMISSIONS = {"agent": {"permissionRequests": True}}


async def test_read_edit_run_and_answer_on_an_openai_endpoint(launch: Any) -> None:
    with FakeOpenAI(models=["coder", "small"]) as fake:
        fake.push(
            tool_turn(("read_file", {"file_path": "app.py"}), text="Reading."),
            {"status": 429, "retry_after": 0},
            tool_turn(("replace", {"file_path": "app.py", "old_string": "return 1", "new_string": "return 2"})),
            tool_turn(("run_shell_command", {"command": "echo checked", "description": "check"})),
            text_turn("Now it ", "returns 2.", reasoning=["**Done** editing"]),
        )
        editor = await launch(
            [],
            replay=False,
            experimental=PERMISSIONS,
            extra_env={"OPENAI_BASE_URL": fake.url, "OPENAI_MODEL": "coder", "OPENAI_API_KEY": "sk-lsp"},
        )
        (editor.project / "app.py").write_text("def value():\n    return 1\n")
        described = await editor.request("agent/newSession", {"cwd": str(editor.project)})
        models = described["models"]
        assert models["currentModelId"] == "coder"
        # Answered without waiting for the endpoint: its own list follows, as over ACP.
        assert [m["modelId"] for m in models["availableModels"]] == ["coder"]
        listed = await editor.wait_update(described["sessionId"], "config_option_update")
        validate("SessionNotification", {"sessionId": described["sessionId"], "update": listed})
        picker = next(o for o in listed["configOptions"] if o["id"] == "model")
        assert picker["currentValue"] == "coder" and [o["value"] for o in picker["options"]] == ["coder", "small"]
        assert "OpenAI-compatible" in described["provider"] and "sk-lsp" not in described["provider"]
        session = described["sessionId"]
        result = await editor.request("agent/prompt", {"sessionId": session, "prompt": "make it return 2"})
        assert result["stopReason"] == "end_turn"
        assert fake.violations == []
        assert [r["toolCall"]["kind"] for r in editor.permission_requests] == ["edit", "execute"]
        for asked in editor.permission_requests:
            validate("RequestPermissionRequest", asked)
        assert len(editor.edits) == 1
        assert (editor.project / "app.py").read_text() == "def value():\n    return 2\n"
        assert "Now it returns 2." in editor.messages()
        kinds = editor.kinds()
        assert "agent_thought_chunk" in kinds and "tool_call" in kinds
        switched = await editor.request("agent/setModel", {"sessionId": session, "modelId": "small"})
        assert switched["models"]["currentModelId"] == "small"
        tool_answers = [m for m in fake.chat_requests()[-1].body["messages"] if m["role"] == "tool"]
        assert len(tool_answers) == 3 and "checked" in tool_answers[-1]["content"]
