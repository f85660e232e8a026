"""The event stream on its own: the consumer's pace (``delivered``), sinks, one prompt at a time, cancellation."""

from __future__ import annotations

import asyncio

import pytest

from agent_lsp import events as ev
from agent_lsp.core.event_stream import EventStream


async def test_delivered_waits_until_the_consumer_asks_for_the_next_event() -> None:
    stream = EventStream()
    seen: list[str] = []

    async def body() -> None:
        stream.emit(ev.Content("a"))
        stream.emit(ev.Content("b"))
        await stream.delivered()
        seen.append("delivered")  # both chunks were handled by the consumer before this point

    async for event in stream.run(body, list):
        assert isinstance(event, ev.Content)
        seen.append(event.text)
        await asyncio.sleep(0)  # give the task a chance to run ahead of the consumer
    assert seen == ["a", "b", "delivered"]
    assert not stream.running


async def test_a_failing_sink_is_logged_and_the_others_still_see_every_event() -> None:
    kept: list[ev.AgentEvent] = []

    def broken(event: ev.AgentEvent) -> None:
        raise ValueError("observer bug")

    def keep(event: ev.AgentEvent) -> None:
        kept.append(event)

    stream = EventStream([broken, keep])

    async def body() -> None:
        stream.emit(ev.Content("x"))

    events = [e async for e in stream.run(body, list)]
    assert events == kept
    assert [(e.kind, getattr(e, "text", None)) for e in events] == [("content", "x")]


async def test_one_prompt_at_a_time() -> None:
    stream = EventStream()
    gate = asyncio.Event()

    async def body() -> None:
        stream.emit(ev.Content("first", "m1"))
        await gate.wait()

    first = stream.run(body, list)
    assert await first.__anext__() == ev.Content("first", "m1")
    assert stream.running
    with pytest.raises(RuntimeError, match="already running"):
        await stream.run(body, list).__anext__()
    gate.set()
    assert [e async for e in first] == []
    assert not stream.running


async def test_cancelling_runs_the_prompts_own_cleanup() -> None:
    stream = EventStream()
    cleaned: list[bool] = []

    async def body() -> None:
        try:
            stream.emit(ev.Content("working", "m1"))
            await asyncio.Event().wait()
        finally:
            cleaned.append(True)
            stream.emit(ev.Stop("cancelled", ev.Usage()))

    events: list[ev.AgentEvent] = []
    async for event in stream.run(body, list):
        events.append(event)
        stream.cancel()
    assert cleaned == [True]
    assert events == [ev.Content("working", "m1"), ev.Stop("cancelled", ev.Usage())]


async def test_a_task_cancelled_before_its_first_step_ends_with_the_given_events() -> None:
    seen: list[ev.AgentEvent] = []

    def see(event: ev.AgentEvent) -> None:
        seen.append(event)

    stream = EventStream([see])
    ran: list[bool] = []

    async def body() -> None:
        ran.append(True)

    events = stream.run(body, lambda: [ev.UserCancelled(), ev.Stop("cancelled", ev.Usage())])
    first = asyncio.ensure_future(events.__anext__())
    await asyncio.sleep(0)  # the task exists; its first step has not run
    stream.cancel()
    got = [await asyncio.wait_for(first, 2), *[e async for e in events]]
    assert ran == []
    assert got == seen == [ev.UserCancelled(), ev.Stop("cancelled", ev.Usage())]


async def test_message_ids_one_per_message_on_every_chunk() -> None:
    stream = EventStream()

    async def body() -> None:
        stream.emit(ev.UserMessage("hi"))
        stream.emit(ev.Thought("plan", "a"))
        stream.emit(ev.Thought("", "b"))
        stream.emit(ev.Content("one "))
        stream.emit(ev.Content("two"))
        stream.emit(ev.Finished("STOP"))
        stream.emit(ev.Content("next answer"))
        stream.emit(ev.Content("kept", "given"))

    events = [e async for e in stream.run(body, list)]
    ids = [getattr(e, "message_id", None) for e in events]
    user, t1, t2, c1, c2, _fin, c3, c4 = ids
    assert user and t1 and c1 and c3
    assert t1 == t2 and c1 == c2  # the chunks of one message share its id
    assert len({user, t1, c1, c3}) == 4  # a new message (kind switch, a new response) gets a new one
    assert c4 == "given"  # an id the producer set is kept
