"""Steering a running prompt (taken in at its next safe point, recorded where it went in, one Stop) and the
compaction lifecycle of every compression (manual, automatic, failed)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent_lsp import events as ev
from agent_lsp.core.commands import CommandContext, Commands

from .conftest import TestTool, call_chunks, collect, kinds, make_session, text_chunks


def _summary(text: str) -> dict[str, Any]:
    return {
        "method": "generateContent",
        "response": {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}]},
    }


async def test_a_steered_message_joins_the_running_turn_after_its_tool_batch(tmp_path: Path) -> None:
    tool = TestTool("slow", delay=0.2)
    lines = [call_chunks(("slow", {"x": "a"})), text_chunks("took your note")]
    session, model = make_session(lines, [tool], tmp_path=tmp_path)
    events: list[ev.AgentEvent] = []
    steered_id: str | None = None
    async for event in session.send("start"):
        events.append(event)
        if isinstance(event, ev.ToolCallRequest):
            steered_id = session.steer("also check the tests")
    assert steered_id
    stops = [e for e in events if isinstance(e, ev.Stop)]
    assert [s.reason for s in stops] == ["end_turn"]  # the prompt settles once, at its real end
    [steered] = [e for e in events if isinstance(e, ev.UserMessage) and e.steered]
    assert steered.message_id == steered_id and steered.text == "also check the tests"
    order = kinds(events)
    assert order.index("tool_call_response") < events.index(steered) < order.index("content")
    # The model's second request carries the note, in the same user turn as the tool's answer.
    _method, request = model.requests[1]
    last = request.contents[-1]
    assert last.role == "user" and any(p.function_response for p in last.parts)
    assert any(p.text == "also check the tests" for p in last.parts)
    assert session.messages.targets()[1].message_id == steered_id


async def test_a_message_steered_during_the_last_answer_makes_one_more_turn(tmp_path: Path) -> None:
    lines = [text_chunks("first ", "answer"), text_chunks("second answer")]
    session, model = make_session(lines, tmp_path=tmp_path, chunk_delay=0.05)
    events: list[ev.AgentEvent] = []
    async for event in session.send("hello"):
        events.append(event)
        if isinstance(event, ev.Content) and event.text == "first ":
            assert session.steer("and say it twice")
    assert model.remaining == 0 and len(model.requests) == 2
    assert [e.reason for e in events if isinstance(e, ev.Stop)] == ["end_turn"]
    contents = session.history.contents()
    assert [c.role for c in contents] == ["user", "model", "user", "model"]
    assert contents[2].parts[0].text == "and say it twice"
    ids = {e.message_id for e in events if isinstance(e, ev.Content)}
    assert len(ids) == 2  # two answers, two agent messages


async def test_steering_an_idle_session_is_refused(tmp_path: Path) -> None:
    session, _model = make_session([text_chunks("hi")], tmp_path=tmp_path)
    assert session.steer("anyone there?") is None
    await collect(session, "hello")
    assert session.steer("too late") is None


async def test_a_cancelled_turn_says_which_steered_message_was_not_sent(tmp_path: Path) -> None:
    tool = TestTool("slow", delay=5)
    session, _model = make_session([call_chunks(("slow", {"x": "a"}))], [tool], tmp_path=tmp_path)
    events: list[ev.AgentEvent] = []
    async for event in session.send("start"):
        events.append(event)
        if isinstance(event, ev.ToolCallRequest):
            assert session.steer("never mind")
            await asyncio.sleep(0.05)
            session.cancel()
    notices = [e.message for e in events if isinstance(e, ev.Notice)]
    assert any("never mind" in n for n in notices)
    assert events[-1] == ev.Stop("cancelled", session.usage)


async def test_compress_command_is_one_compaction_lifecycle_with_its_summary(tmp_path: Path) -> None:
    lines = [text_chunks("a" * 400), text_chunks("b" * 400, prompt_tokens=300), _summary("the snapshot")]
    session, _model = make_session(lines, tmp_path=tmp_path, commands=Commands(CommandContext()))
    await collect(session, "first " + "q" * 400)
    await collect(session, "second " + "q" * 400)
    events = await collect(session, "/compress")
    steps = [e for e in events if isinstance(e, ev.Compaction)]
    assert [s.status for s in steps] == ["in_progress", "completed"]
    assert len({s.compaction_id for s in steps}) == 1
    done = steps[-1]
    assert done.trigger == "manual" and done.summary == "the snapshot"
    assert done.tokens_before == 300 and 0 < done.tokens_after < 300
    assert kinds(events).index("compaction") < kinds(events).index("chat_compressed")


async def test_automatic_and_failed_compressions_report_their_lifecycle(tmp_path: Path) -> None:
    big = " ".join(f"word{i}" for i in range(600))
    lines = [
        text_chunks("first " + big, prompt_tokens=200),
        text_chunks("second " + big, prompt_tokens=600_000),  # past the threshold: the next prompt compresses
        _summary(""),  # an empty summary: the compression fails, the prompt goes on
        text_chunks("third"),
    ]
    session, model = make_session(lines, tmp_path=tmp_path)
    await collect(session, "one " + big)
    await collect(session, "two " + big)
    events = await collect(session, "three")
    steps = [e for e in events if isinstance(e, ev.Compaction)]
    assert [(s.status, s.trigger) for s in steps] == [("in_progress", "auto"), ("failed", "auto")]
    assert "empty summary" in steps[-1].error
    assert events[-1].kind == "stop" and model.remaining == 0
