"""Contract 2 over LSP (a real server subprocess): the same message ids, compaction lifecycle and subagent nesting
as ACP inside ``agent/update``, ``agent/steer`` into a running turn, and rewind/fork by message id."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.fakes.fake_gemini import FakeGemini
from tests.lsp.conftest import until
from tests.replay_lines import call_line, text_line


def _chunks(editor: Any, session: str, kind: str) -> list[tuple[str, str | None]]:
    return [
        (u["update"]["content"]["text"], u["update"].get("messageId"))
        for u in editor.updates
        if u["sessionId"] == session and u["update"]["sessionUpdate"] == kind
    ]


def _big(line: dict[str, Any], tokens: int) -> dict[str, Any]:
    """A response line whose usage says the conversation is ``tokens`` long (so a compression has room to gain)."""
    line["response"][-1]["usageMetadata"] = {"promptTokenCount": tokens, "totalTokenCount": tokens + 5}
    return line


def _summary(text: str) -> dict[str, Any]:
    return {
        "method": "generateContent",
        "response": {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}]},
    }


async def test_ids_compaction_and_rewind_and_fork_by_id(launch: Any) -> None:
    long = " ".join(f"word{i}" for i in range(300))
    editor = await launch(
        [
            _big(text_line("Hello ", "there " + long), 5000),
            _big(text_line("Again " + long), 6000),
            _summary("<state_snapshot>hello and again</state_snapshot>"),
        ]
    )
    session = await editor.new_session()
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "first " + long})
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "second " + long})
    agent = _chunks(editor, session, "agent_message_chunk")
    assert agent[0][1] and agent[0][1] == agent[1][1] != agent[2][1]

    listing = await editor.request("agent/rewind", {"sessionId": session})
    ids = [m["messageId"] for m in listing["messages"]]
    assert all(ids) and len(set(ids)) == 2
    preview = await editor.request("agent/rewind", {"sessionId": session, "messageId": ids[1], "dryRun": True})
    assert preview["messageIndex"] == 1 and preview["messageId"] == ids[1]
    forked = await editor.request("agent/fork", {"sessionId": session, "messageId": ids[1]})
    assert forked["messageIndex"] == 1 and forked["messageId"] == ids[1] and forked["messageText"].startswith("second")
    replayed = [u for u in editor.updates if u["sessionId"] == forked["sessionId"]]
    users = [u["update"] for u in replayed if u["update"]["sessionUpdate"] == "user_message_chunk"]
    assert [u.get("messageId") for u in users] == [ids[0]]  # the fork replays the recorded id

    await editor.request("agent/prompt", {"sessionId": session, "prompt": "/compress"})
    steps = [u["update"] for u in editor.updates if u["update"]["sessionUpdate"] == "compaction_update"]
    assert [s["status"] for s in steps] == ["in_progress", "completed"]  # always sent over LSP
    assert steps[1]["summary"][0]["text"] == "<state_snapshot>hello and again</state_snapshot>"
    assert steps[1]["_meta"]["agent-lsp"]["tokensAfter"] < steps[1]["_meta"]["agent-lsp"]["tokensBefore"]

    try:
        await editor.request("agent/rewind", {"sessionId": session, "messageId": "nope"})
    except Exception as exc:
        assert "no user message 'nope'" in str(exc)
    else:
        raise AssertionError("an unknown message id must be refused")


async def test_agent_steer_into_a_running_turn_and_when_idle(launch: Any) -> None:
    with FakeGemini() as fake:
        chunks = [
            {"candidates": [{"content": {"role": "model", "parts": [{"text": t}]}}]} for t in ("Working ", "on it")
        ]
        chunks[-1]["candidates"][0]["finishReason"] = "STOP"
        fake.push({"chunks": chunks, "delay_s": 0.3}, text_line("Noted."), text_line("Fresh turn."))
        env = {"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}
        editor = await launch([], replay=False, extra_env=env)
        session = await editor.new_session()
        running = asyncio.ensure_future(editor.request("agent/prompt", {"sessionId": session, "prompt": "go"}))
        await editor.wait_update(session, "agent_message_chunk")
        steered = await editor.request(
            "agent/steer", {"sessionId": session, "prompt": [{"type": "text", "text": "mind the tests"}]}
        )
        assert steered["outcome"] == "injected" and steered["_meta"]["agent-lsp"]["messageId"]
        assert (await asyncio.wait_for(running, 20))["stopReason"] == "end_turn"
        second = fake.generation_requests()[1].body["contents"]
        assert second[-1] == {"role": "user", "parts": [{"text": "mind the tests"}]}

        idle = {"sessionId": session, "prompt": [{"type": "text", "text": "x"}], "idleBehavior": "promptRequired"}
        assert (await editor.request("agent/steer", idle))["outcome"] == "promptRequired"
        fresh = {"sessionId": session, "prompt": [{"type": "text", "text": "new one"}]}
        assert (await editor.request("agent/steer", fresh))["outcome"] == "startedNewTurn"
        await until(lambda: any(t == "Fresh turn." for t, _ in _chunks(editor, session, "agent_message_chunk")), 20)
        listing = await editor.request("agent/rewind", {"sessionId": session})
        assert [m["text"] for m in listing["messages"]] == ["go", "mind the tests", "new one"]
        assert listing["messages"][1]["messageId"] == steered["_meta"]["agent-lsp"]["messageId"]


async def test_subagent_updates_are_nested_by_meta(launch: Any) -> None:
    editor = await launch(
        [
            call_line("invoke_agent", {"agent_name": "generalist", "prompt": "Write notes.txt"}),
            call_line("write_file", {"file_path": "notes.txt", "content": "notes\n"}),
            call_line("complete_task", {"result": {"response": "written"}}),
            text_line("Done."),
        ],
        experimental={"agent": {"permissionRequests": True, "compaction": True, "subagents": True}},
    )
    session = await editor.new_session()
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "delegate"})
    mine = [u["update"] for u in editor.updates if u["sessionId"] == session]
    call = next(u for u in mine if u["sessionUpdate"] == "tool_call")
    nested = [u for u in mine if u.get("_meta", {}).get("agent-lsp", {}).get("subagent", {}) not in ({}, "generalist")]
    origin = nested[0]["_meta"]["agent-lsp"]["subagent"]
    assert origin["parentToolCallId"] == call["toolCallId"] and origin["agent"] == "generalist"
    assert nested[0]["sessionUpdate"] == "subagent_update" and nested[-1]["state"]["state"] == "idle"
    assert any(u["sessionUpdate"] == "tool_call" and u["rawInput"].get("file_path") == "notes.txt" for u in nested)
    [asked] = editor.permission_requests
    assert asked["toolCall"]["_meta"]["agent-lsp"]["subagent"] == origin  # the question says whose call it is


async def test_without_the_advertisement_a_subagent_stays_one_folded_call(launch: Any) -> None:
    editor = await launch(
        [
            call_line("invoke_agent", {"agent_name": "codebase_investigator", "prompt": "Read main"}),
            call_line("list_directory", {"dir_path": "."}),
            call_line(
                "complete_task", {"report": {"SummaryOfFindings": "x", "ExplorationTrace": [], "RelevantLocations": []}}
            ),
            text_line("Done."),
        ]
    )
    session = await editor.new_session()
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "delegate"})
    mine = [u["update"] for u in editor.updates if u["sessionId"] == session]
    assert not any(u["sessionUpdate"] == "subagent_update" for u in mine)
    assert [u["title"] for u in mine if u["sessionUpdate"] == "tool_call"] == [
        "Delegating to agent 'codebase_investigator'"
    ]
    assert any("list_directory" in str(u.get("content")) for u in mine if u["sessionUpdate"] == "tool_call_update")
