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


ORIGIN = ev.Origin("s1", "generalist", "child-1")
NEW_EVENTS: list[ev.AgentEvent] = [
    ev.UserMessage("hello", 0, "u1"),
    ev.Content("Hi", "m1"),
    ev.Thought("Reading", "the file", "t1"),
    ev.Compaction("k1", "in_progress", "manual", tokens_before=900),
    ev.Compaction("k1", "completed", "manual", "the summary", tokens_before=900, tokens_after=100),
    ev.Compaction("k2", "failed", "auto", error="Could not compress the conversation: boom"),
    ev.ToolCallRequest(SUBAGENT),
    ev.SubagentEvent(ORIGIN, ev.UserMessage("Write notes", 0, "cu1")),
    ev.SubagentEvent(ORIGIN, ev.Content("on it", "cm1")),
    ev.SubagentEvent(ORIGIN, ev.ToolCallRequest(CALL)),
    ev.SubagentEvent(ORIGIN, ev.Stop("end_turn")),
    ev.ToolOutput("s1", "🔧 replace\n"),
]


def test_ids_compactions_and_subagents_validate_and_say_what_contract_2_says() -> None:
    from tests.acp_schema import validate_unstable

    state = UpdateState(compaction_supported=True, subagents_supported=True)
    out: list[dict[str, object]] = []
    for event in NEW_EVENTS:
        updates, state = to_updates(event, state, replay=True)
        out += updates
    for u in out:
        if u["sessionUpdate"] == "subagent_update":
            validate_unstable("SessionUpdate", u)
        else:
            validate("SessionUpdate", u)
    assert [u.get("messageId") for u in out[:3]] == ["u1", "m1", "t1"]
    compactions = [u for u in out if u["sessionUpdate"] == "compaction_update"]
    assert [c["status"] for c in compactions] == ["in_progress", "completed", "failed"]
    assert compactions[1]["summary"] == [{"type": "text", "text": "the summary"}]
    assert compactions[1]["_meta"] == {"agent-lsp": {"trigger": "manual", "tokensBefore": 900, "tokensAfter": 100}}
    assert compactions[2]["error"].startswith("Could not compress")
    nested = [u for u in out if isinstance(u.get("_meta"), dict) and "subagent" in u["_meta"].get("agent-lsp", {})]
    meta = {"parentToolCallId": "s1", "agent": "generalist", "childSessionId": "child-1"}
    assert all(u["_meta"]["agent-lsp"]["subagent"] == meta for u in nested[1:])
    kinds = [u["sessionUpdate"] for u in nested[1:]]
    assert kinds == ["subagent_update", "user_message_chunk", "agent_message_chunk", "tool_call", "subagent_update"]
    assert nested[1]["state"] == {"state": "running"} and nested[1]["title"] == "generalist"
    assert nested[-1]["state"] == {"state": "idle", "stopReason": "end_turn"}
    assert out[-1]["sessionUpdate"] != "tool_call_update"  # the call's folded steps give way to the child session


def test_without_the_capabilities_what_clients_saw_before() -> None:
    state = UpdateState()
    out: list[dict[str, object]] = []
    for event in NEW_EVENTS:
        updates, state = to_updates(event, state)
        out += updates
    kinds = [u["sessionUpdate"] for u in out]
    assert "compaction_update" not in kinds and "subagent_update" not in kinds
    failed = [u for u in out if "Could not compress" in str(u.get("content"))]
    assert len(failed) == 1  # a failed compression is a warning, as it always was
    assert kinds[-1] == "tool_call_update"  # the subagent's steps folded in its call


def test_usage_updates_carry_the_session_and_the_turn_and_a_childs_leave_the_parents_alone() -> None:
    session = ev.UsageTotals((ev.ModelUsage("gemini-2.5-pro", 3, ev.Usage(300, 30, 0, 0, 330), 0.0007),))
    turn = ev.UsageTotals((ev.ModelUsage("gemini-2.5-pro", 1, ev.Usage(100, 10, 0, 0, 110), 0.0002),))
    state = UpdateState(context_size=1000, subagents_supported=True)
    [update], state = to_updates(ev.Finished("STOP", ev.Usage(100, 10, 0, 0, 110), 0.0007, session, turn), state)
    validate("SessionUpdate", update)
    assert update["used"] == 110 and update["cost"] == {"amount": 0.0007, "currency": "USD"}
    ours = update["_meta"]["agent-lsp"]
    assert ours["session"]["requests"] == 3 and ours["turn"]["inputTokens"] == 100
    assert ours["session"]["byModel"][0]["model"] == "gemini-2.5-pro"
    # A subagent's response: drawn as the child's, but the parent's context fill and count are untouched.
    origin = ev.Origin("call-1", "codebase_investigator", "child-1")
    child = ev.Finished("STOP", ev.Usage(900, 9, 0, 0, 909), 0.0009, session, turn)
    updates, after = to_updates(ev.SubagentEvent(origin, child), state)
    assert any(u.get("sessionUpdate") == "usage_update" and u["used"] == 909 for u in updates)
    assert (after.used, after.counted) == (110, 3)
    # The prompt's end says the totals again only when later calls changed them.
    assert to_updates(ev.Stop("end_turn", None, session, turn), after)[0] == []
    more = ev.UsageTotals((ev.ModelUsage("gemini-2.5-pro", 4, ev.Usage(400, 40, 0, 0, 440), 0.0009),))
    [closing], _ = to_updates(ev.Stop("end_turn", None, more, turn), after)
    assert closing["used"] == 110 and closing["_meta"]["agent-lsp"]["session"]["requests"] == 4


def test_compress_report_is_text_only_where_compactions_are_not_drawn() -> None:
    """/compress's words: dropped for a client that draws the compaction item, kept for one that does not and for
    the terminal (headless prints every Content)."""
    from agent_lsp.render import render

    told = ev.Content("Compressed the conversation from 6000 to about 900 tokens.", "m1", compaction_id="c1")
    assert to_updates(told, UpdateState(compaction_supported=True))[0] == []
    [chunk], _ = to_updates(told, UpdateState())
    assert chunk["content"]["text"] == told.text and chunk["messageId"] == "m1"
    assert render(told) == told.text


def test_context_usage_is_an_estimated_usage_update() -> None:
    totals = ev.UsageTotals((ev.ModelUsage("gemini-2.5-pro", 2, ev.Usage(9000, 20), 0.5),))
    [update], state = to_updates(ev.ContextUsage(4000, 2_097_152, totals), UpdateState())
    validate("SessionNotification", {"sessionId": "s", "update": update})
    assert (update["used"], update["size"], update["cost"]["amount"]) == (4000, 2_097_152, 0.5)
    assert update["_meta"]["agent-lsp"]["estimated"] is True and "turn" not in update["_meta"]["agent-lsp"]
    # The prompt's closing usage_update (calls after the last response) reports against the new fill and window.
    later = ev.UsageTotals((ev.ModelUsage("gemini-2.5-pro", 3, ev.Usage(9100, 25), 0.6),))
    [closing], _ = to_updates(ev.Stop("end_turn", session_usage=later), state)
    assert (closing["used"], closing["size"]) == (4000, 2_097_152)
