"""An MCP server's progress reaches the editor: ACP tool_call_update while the call runs (real ACP SDK client,
real server-everything), and LSP's $/progress wording."""

from __future__ import annotations

import json
from pathlib import Path

from acp import text_block

from agent_lsp import events as ev
from agent_lsp.adapters.lsp import progress
from tests.acp.editor import EditorClient, connect
from tests.acp.harness import agent_argv, agent_env, call_turn, text_turn, write_script

from .third_party_servers import NODE_BIN, installed


async def _prompt_with_everything(editor: EditorClient, script: Path, project: Path, home: Path) -> str:
    """One prompt in an ACP session (the real ACP SDK client) to which the editor gave server-everything."""
    everything = {"name": "everything", "command": installed(NODE_BIN / "mcp-server-everything"), "args": ["stdio"]}
    async with connect(editor, agent_argv(script), agent_env(home), project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[{**everything, "env": []}])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    return str(response.stop_reason)


async def test_acp_editor_sees_the_servers_progress_while_the_call_runs(tmp_path: Path, _private_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    script = write_script(
        tmp_path / "progress.jsonl",
        [
            call_turn(("mcp_everything_trigger-long-running-operation", {"duration": 0.3, "steps": 3})),
            text_turn("Done."),
        ],
    )
    editor = EditorClient(answer="proceed_once")
    assert await _prompt_with_everything(editor, script, project, _private_home) == "end_turn"
    live = [
        u["content"][0]["content"]["text"]
        for u in editor.updates()
        if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "in_progress" and u.get("content")
    ]
    assert live and "[1/3]" in live[0] and "[3/3]" in live[-1], live
    finals = [u for u in editor.updates() if u["sessionUpdate"] == "tool_call_update" and u.get("status")]
    assert finals[-1]["status"] == "completed"


def test_lsp_progress_words_an_mcp_calls_progress() -> None:
    tracker = progress.ProgressTracker()
    call = ev.ToolCallInfo("m1", "mcp_everything_trigger-long-running-operation", {}, "long run")
    assert tracker.message(ev.ToolCallRequest(call)) is None
    running = "Running mcp_everything_trigger-long-running-operation: long run"
    assert tracker.message(ev.ToolCallStatusChange("m1", "executing")) == running
    assert tracker.message(ev.ToolOutput("m1", "[2/5] copying\n")) == f"{running}: [2/5] copying"
    # A shell's output is not progress: it stays in the tool call's own view.
    tracker.message(ev.ToolCallRequest(ev.ToolCallInfo("s1", "run_shell_command", {}, "ls")))
    assert tracker.message(ev.ToolOutput("s1", "a.txt\n")) is None


async def test_a_servers_sampling_request_is_asked_then_answered_by_the_sessions_model(
    tmp_path: Path, _private_home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    sampled = {
        "method": "generateContent",
        "response": {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": "Hi from the model"}]}, "finishReason": "STOP"}
            ],
            "usageMetadata": {"promptTokenCount": 7_777, "candidatesTokenCount": 11, "totalTokenCount": 7_788},
        },
    }
    script = write_script(
        tmp_path / "sampling.jsonl",
        [call_turn(("mcp_everything_trigger-sampling-request", {"prompt": "say hi"})), sampled, text_turn("Done.")],
    )
    editor = EditorClient(answer="proceed_once")
    assert await _prompt_with_everything(editor, script, project, _private_home) == "end_turn"
    # The tool call is asked about, then the server's sampling request (server-everything offers the tool only
    # to a client that declares sampling).
    assert len(editor.permission_requests) == 2
    asked = editor.permission_requests[1]["toolCall"]["title"]
    assert asked == "MCP server 'everything' asks the model: Resource trigger-sampling-request context: say hi"
    finals = [u for u in editor.updates() if u["sessionUpdate"] == "tool_call_update" and u.get("status")]
    done = [u for u in finals if u["status"] == "completed"]
    assert done and "Hi from the model" in json.dumps(done[-1])
    # The sampling call is one of the session's model calls: counted in its usage (model/metered.py).
    usage = [u for u in editor.updates() if u["sessionUpdate"] == "usage_update"][-1]["_meta"]["agent-lsp"]["session"]
    assert usage["requests"] == 3 and usage["inputTokens"] >= 7_777


async def test_sampling_is_declined_where_nobody_can_be_asked() -> None:
    from mcp_types import CreateMessageRequestParams, ErrorData, SamplingMessage, TextContent

    from agent_lsp.runtime.sampling import SessionSampler

    class NeverAsked:
        async def confirm(self, call: object, details: object) -> object:
            raise AssertionError("headless must not ask")

    params = CreateMessageRequestParams(
        messages=[SamplingMessage(role="user", content=TextContent(text="hi"))], max_tokens=10
    )
    sampler = SessionSampler(None, NeverAsked(), interactive=False)  # type: ignore[arg-type]
    answer = await sampler("srv", params)
    assert isinstance(answer, ErrorData) and "nobody can be asked" in answer.message
