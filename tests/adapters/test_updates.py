"""The shared event → session/update converter: every output validates against the ACP schema."""

from __future__ import annotations

from agent_lsp import events as ev
from agent_lsp.adapters.updates import UpdateState, permission_tool_call, to_updates
from tests.acp_schema import validate

CALL = ev.ToolCallInfo("c1", "replace", {"file_path": "/w/a.py"}, "Edit a.py", "edit", (ev.Location("/w/a.py", 3),))
SUBAGENT = ev.ToolCallInfo("s1", "invoke_agent", {"agent_name": "cli_help", "prompt": "?"}, "Delegating", "other")
DIFF = ev.FileDiff("/w/a.py", "old\n", "new\n", "-old\n+new\n")

EVENTS: list[ev.AgentEvent] = [
    ev.UserMessage("hello"),
    ev.Content("Hi"),
    ev.Thought("Reading", "the file"),
    ev.ToolCallRequest(CALL),
    ev.ToolCallConfirmation(CALL, ev.ConfirmationDetails("edit", "Edit a.py", path="/w/a.py", diff=DIFF)),
    ev.ToolCallStatusChange("c1", "executing"),
    ev.ToolOutput("c1", "line 1\n"),
    ev.ToolOutput("c1", "line 2\n"),
    ev.ToolCallResponse("c1", "replace", "success", display="done", diff=DIFF, locations=CALL.locations),
    ev.ToolCallResponse("c2", "run_shell_command", "error", error="exit 1"),
    ev.ToolCallRequest(SUBAGENT),
    ev.ToolOutput("s1", "🔧 get_internal_docs\n"),
    ev.ToolCallResponse("s1", "invoke_agent", "success", display="The answer."),
    ev.Plan((ev.PlanEntry("read", "completed"), ev.PlanEntry("fix", "in_progress"), ev.PlanEntry("x", "cancelled"))),
    ev.Finished("STOP", ev.Usage(prompt_tokens=100, candidates_tokens=20, total_tokens=120)),
    ev.SessionTitle("Fix the bug"),
    ev.Notice("warning", "MCP server died"),
    ev.Retry(1, "429", 1.0),
    ev.ModelFallback("gemini-2.5-pro", "gemini-2.5-flash", "quota"),
    ev.ChatCompressed(1000, 300),
    ev.LoopDetected("tool_call", "x"),
    ev.InvalidStream("empty_response", "nothing"),
    ev.MaxSessionTurns(5),
    ev.ContextWindowWillOverflow(10, 5),
]


def test_every_update_validates_against_the_schema() -> None:
    for notices in (False, True):
        state = UpdateState(notices_supported=notices)
        produced = 0
        for event in EVENTS:
            updates, state = to_updates(event, state, replay=True)
            for u in updates:
                validate("SessionUpdate", u)
                produced += 1
        assert produced >= len(EVENTS) - 1


def test_live_output_accumulates_and_is_dropped_after_the_call() -> None:
    state = UpdateState()
    _, state = to_updates(ev.ToolOutput("c1", "a\n"), state)
    updates, state = to_updates(ev.ToolOutput("c1", "b\n"), state)
    assert "a\nb\n" in updates[0]["content"][0]["content"]["text"]
    done, state = to_updates(ev.ToolCallResponse("c1", "run_shell_command", "success", display="ok"), state)
    assert done[0]["status"] == "completed" and "a\nb" in done[0]["content"][0]["content"]["text"]
    assert state.live_output == {}


def test_a_subagent_call_is_marked_and_ends_with_its_steps_then_its_report() -> None:
    [call], state = to_updates(ev.ToolCallRequest(SUBAGENT), UpdateState())
    assert call["_meta"] == {"agent-lsp": {"subagent": "cli_help"}}
    assert "_meta" not in to_updates(ev.ToolCallRequest(CALL), state)[0][0]
    _, state = to_updates(ev.ToolOutput("s1", "🔧 get_internal_docs\n"), state)
    [done], _ = to_updates(ev.ToolCallResponse("s1", "invoke_agent", "success", display="The answer."), state)
    assert [c["content"]["text"] for c in done["content"]] == ["```\n🔧 get_internal_docs\n\n```", "The answer."]


def test_user_messages_only_on_replay_and_permission_carries_diff() -> None:
    assert to_updates(ev.UserMessage("x"), UpdateState())[0] == []
    tc = permission_tool_call(CALL, ev.ConfirmationDetails("edit", "Edit a.py", diff=DIFF))
    validate("ToolCallUpdate", tc)
    assert tc["content"][0] == {"type": "diff", "path": "/w/a.py", "oldText": "old\n", "newText": "new\n"}
    assert tc["locations"] == [{"path": "/w/a.py", "line": 3}]
