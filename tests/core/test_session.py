"""The multi-turn loop: streaming, tools, confirmations, cancellation, limits and model faults."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator
from pathlib import Path

from agent_lsp import events as ev
from agent_lsp.core.history import is_function_response_turn
from agent_lsp.core.session_state import SessionOptions
from agent_lsp.model.base import Content, GenerateRequest, ModelChunk, ModelClient

from .conftest import RecordingConfirmer, TestTool, call_chunks, collect, kinds, make_session, text_chunks


def assert_api_valid(contents: tuple[Content, ...]) -> None:
    """Alternating roles, starts with user, every call answered by a response with the same name/id."""
    assert contents[0].role == "user"
    for a, b in itertools.pairwise(contents):
        assert a.role != b.role
    for i, c in enumerate(contents):
        assert not any(p.thought for p in c.parts)
        calls = [p.function_call for p in c.parts if p.function_call is not None]
        if calls:
            assert i + 1 < len(contents), "a function call was left unanswered"
            responses = [p.function_response for p in contents[i + 1].parts if p.function_response is not None]
            assert [(r.name, r.id) for r in responses] == [(f.name, f.id) for f in calls]


async def test_text_streams_and_history_records_the_answer(tmp_path: Path) -> None:
    session, model = make_session([text_chunks("Hel", "lo")], tmp_path=tmp_path)
    events = await collect(session, "hi")
    assert kinds(events) == ["user_message", "session_title", "content", "content", "finished", "stop"]
    assert [e.text for e in events if isinstance(e, ev.Content)] == ["Hel", "lo"]
    stop = events[-1]
    assert isinstance(stop, ev.Stop) and stop.reason == "end_turn"
    contents = session.history.contents()
    assert [c.role for c in contents] == ["user", "model"]
    assert contents[1].parts[0].text == "Hello"  # streamed chunks merged into one part
    assert model.remaining == 0


async def test_thoughts_become_events_with_subject_and_are_not_stored(tmp_path: Path) -> None:
    line = {
        "method": "generateContentStream",
        "response": [
            {
                "candidates": [
                    {
                        "content": {
                            "role": "model",
                            "parts": [{"text": "**Planning the fix** I will read the file first.", "thought": True}],
                        }
                    }
                ]
            },
            {"candidates": [{"content": {"role": "model", "parts": [{"text": "Done."}]}, "finishReason": "STOP"}]},
        ],
    }
    session, _ = make_session([line], tmp_path=tmp_path)
    events = await collect(session, "fix it")
    thought = next(e for e in events if isinstance(e, ev.Thought))
    assert thought.subject == "Planning the fix"
    assert thought.description == "I will read the file first."
    assert all(not p.thought for c in session.history.contents() for p in c.parts)


async def test_tool_loop_sends_responses_back_until_no_calls(tmp_path: Path) -> None:
    tool = TestTool("peek")
    session, model = make_session(
        [call_chunks(("peek", {"x": "a"})), text_chunks("all done")], [tool], tmp_path=tmp_path
    )
    events = await collect(session, "look")
    assert tool.done == ["a"]
    order = [k for k in kinds(events) if k.startswith("tool_call") and k != "tool_call_status"]
    assert order == ["tool_call_request", "tool_call_response"]
    statuses = [e.status for e in events if isinstance(e, ev.ToolCallStatusChange)]
    assert statuses == ["validating", "scheduled", "executing"]
    request = next(e for e in events if isinstance(e, ev.ToolCallRequest))
    assert request.call.title == "peek a" and request.call.kind == "read"
    # The second request carried the function response, with the model's id.
    _, second = model.requests[1]
    response = second.contents[-1].parts[0].function_response
    assert response is not None and response.id == "id-0-peek" and response.response == {"output": "peek ok a"}
    assert second.tools and second.tools[0].name == "peek"
    assert_api_valid(session.history.contents())


async def test_unknown_tool_and_bad_params_are_results_the_model_reads(tmp_path: Path) -> None:
    tool = TestTool("peek")
    session, model = make_session(
        [call_chunks(("nope", {}), ("peek", {"x": 3})), text_chunks("ok")], [tool], tmp_path=tmp_path
    )
    events = await collect(session, "go")
    responses = [e for e in events if isinstance(e, ev.ToolCallResponse)]
    assert [r.status for r in responses] == ["error", "error"]
    sent = model.requests[1][1].contents[-1].parts
    assert "not found" in sent[0].function_response.response["error"]  # type: ignore[union-attr]
    assert "params/x must be string" in sent[1].function_response.response["error"]  # type: ignore[union-attr]
    assert isinstance(events[-1], ev.Stop) and events[-1].reason == "end_turn"


async def test_edit_asks_in_default_mode_and_not_in_yolo(tmp_path: Path) -> None:
    for mode, expect_asked in (("default", 1), ("auto_edit", 0), ("yolo", 0)):
        tool = TestTool("edit", kind="edit")
        confirmer = RecordingConfirmer()
        session, _ = make_session(
            [call_chunks(("edit", {"x": "1"})), text_chunks("ok")],
            [tool],
            tmp_path=tmp_path,
            confirmer=confirmer,
            mode=mode,  # type: ignore[arg-type]
        )
        events = await collect(session, "edit")
        assert len(confirmer.asked) == expect_asked, mode
        assert tool.done == ["1"]
        if expect_asked:
            conf = next(e for e in events if isinstance(e, ev.ToolCallConfirmation))
            assert conf.details.diff is not None and conf.details.diff.new_text == "b"


async def test_shell_kind_asks_even_in_auto_edit(tmp_path: Path) -> None:
    tool = TestTool("exec", kind="execute")
    confirmer = RecordingConfirmer()
    session, _ = make_session(
        [call_chunks(("exec", {})), text_chunks("ok")], [tool], tmp_path=tmp_path, confirmer=confirmer, mode="auto_edit"
    )
    await collect(session, "run")
    assert len(confirmer.asked) == 1


async def test_declining_cancels_the_rest_of_the_batch_and_ends_the_prompt(tmp_path: Path) -> None:
    tool = TestTool("edit", kind="edit")
    confirmer = RecordingConfirmer(["cancel"])
    session, model = make_session(
        [call_chunks(("edit", {"x": "1"}), ("edit", {"x": "2"}))], [tool], tmp_path=tmp_path, confirmer=confirmer
    )
    events = await collect(session, "edit twice")
    assert tool.started == []
    assert [e.status for e in events if isinstance(e, ev.ToolCallResponse)] == ["cancelled", "cancelled"]
    assert len(confirmer.asked) == 1  # the second was cancelled without asking
    assert model.remaining == 0 and len(model.requests) == 1  # no extra model call
    assert_api_valid(session.history.contents())
    assert isinstance(events[-2], ev.UserCancelled) and events[-1] == ev.Stop("cancelled", session.usage)


async def test_rejecting_tells_the_model_and_the_batch_and_turn_go_on(tmp_path: Path) -> None:
    tool = TestTool("edit", kind="edit")
    confirmer = RecordingConfirmer(["reject", "proceed_once"])
    session, model = make_session(
        [call_chunks(("edit", {"x": "1"}), ("edit", {"x": "2"})), text_chunks("kept the first as it was")],
        [tool],
        tmp_path=tmp_path,
        confirmer=confirmer,
    )
    events = await collect(session, "edit twice")
    assert tool.done == ["2"] and len(confirmer.asked) == 2
    assert [e.status for e in events if isinstance(e, ev.ToolCallResponse)] == ["cancelled", "success"]
    assert events[-1].reason == "end_turn"  # type: ignore[union-attr]
    # The model was asked again, with the rejection as the first call's result.
    assert model.remaining == 0 and len(model.requests) == 2
    answers = [p.function_response for p in model.requests[1][1].contents[-1].parts if p.function_response]
    assert answers[0] is not None and answers[0].response == {"error": 'Tool "edit" was canceled by the user.'}
    assert_api_valid(session.history.contents())


async def test_proceed_always_stops_asking_for_that_tool(tmp_path: Path) -> None:
    tool = TestTool("edit", kind="edit")
    confirmer = RecordingConfirmer(["proceed_always"])
    session, _ = make_session(
        [call_chunks(("edit", {"x": "1"})), call_chunks(("edit", {"x": "2"})), text_chunks("ok")],
        [tool],
        tmp_path=tmp_path,
        confirmer=confirmer,
    )
    await collect(session, "edit")
    assert len(confirmer.asked) == 1 and tool.done == ["1", "2"]


async def test_modify_applies_what_the_user_edited(tmp_path: Path) -> None:
    tool = TestTool("edit", kind="edit")
    confirmer = RecordingConfirmer(["modify"])
    confirmer.modified = "edited by user"
    session, _ = make_session(
        [call_chunks(("edit", {"x": "1"})), text_chunks("ok")], [tool], tmp_path=tmp_path, confirmer=confirmer
    )
    await collect(session, "edit")
    assert tool.done == ["edited by user"]


async def test_read_only_calls_run_in_parallel(tmp_path: Path) -> None:
    a, b = TestTool("a", delay=0.6), TestTool("b", delay=0.6)
    session, _ = make_session([call_chunks(("a", {}), ("b", {})), text_chunks("ok")], [a, b], tmp_path=tmp_path)
    started = time.perf_counter()
    await collect(session, "both")
    assert time.perf_counter() - started < 1.1  # one after the other would take 1.2 s or more
    assert a.done and b.done


async def test_edits_run_one_at_a_time_in_order(tmp_path: Path) -> None:
    tool = TestTool("edit", kind="edit", delay=0.05)
    session, _ = make_session(
        [call_chunks(("edit", {"x": "1"}), ("edit", {"x": "2"}), ("edit", {"x": "3"})), text_chunks("ok")],
        [tool],
        tmp_path=tmp_path,
        mode="yolo",
    )
    await collect(session, "edit")
    assert tool.started == ["1", "2", "3"]


async def test_cancel_during_tool_answers_every_call_and_session_goes_on(tmp_path: Path) -> None:
    slow = TestTool("slow", kind="execute", delay=5)
    session, _ = make_session(
        [call_chunks(("slow", {"x": "1"}), ("slow", {"x": "2"})), text_chunks("after")],
        [slow],
        tmp_path=tmp_path,
        mode="yolo",
    )
    events: list[ev.AgentEvent] = []

    async def consume() -> None:
        async for e in session.send("run slow"):
            events.append(e)
            if isinstance(e, ev.ToolOutput):
                session.cancel()

    await asyncio.wait_for(consume(), 3)
    assert kinds(events)[-2:] == ["user_cancelled", "stop"]
    assert isinstance(events[-1], ev.Stop) and events[-1].reason == "cancelled"
    assert [e.status for e in events if isinstance(e, ev.ToolCallResponse)] == ["cancelled", "cancelled"]
    assert slow.done == []
    assert_api_valid(session.history.contents())
    # The session is usable again and the history the model sees is valid.
    more = await collect(session, "next")
    assert isinstance(more[-1], ev.Stop) and more[-1].reason == "end_turn"
    assert_api_valid(session.history.contents())


async def test_cancel_during_streaming(tmp_path: Path) -> None:
    session, _ = make_session([text_chunks(*["word "] * 50)], tmp_path=tmp_path, chunk_delay=0.02)
    events: list[ev.AgentEvent] = []
    async for e in session.send("talk"):
        events.append(e)
        if len([x for x in events if isinstance(x, ev.Content)]) == 3:
            session.cancel()
    assert isinstance(events[-1], ev.Stop) and events[-1].reason == "cancelled"
    assert len([x for x in events if isinstance(x, ev.Content)]) < 10


async def test_model_error_ends_turn_with_event_and_rolls_back(tmp_path: Path) -> None:
    session, _ = make_session([], tmp_path=tmp_path)  # nothing scripted: the replay model raises ModelError
    events = await collect(session, "hello")
    err = next(e for e in events if isinstance(e, ev.Error))
    assert "no scripted response" in err.message
    assert isinstance(events[-1], ev.Stop) and events[-1].reason == "error"
    assert session.history.contents() == ()


async def test_empty_response_is_retried_once_then_reported(tmp_path: Path) -> None:
    empty = {
        "method": "generateContentStream",
        "response": [{"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "STOP"}]}],
    }
    session, model = make_session([empty, empty], tmp_path=tmp_path)
    events = await collect(session, "hi")
    assert "retry" in kinds(events)
    invalid = next(e for e in events if isinstance(e, ev.InvalidStream))
    assert invalid.reason == "empty_response"
    assert model.remaining == 0


async def test_no_finish_reason_then_good_answer(tmp_path: Path) -> None:
    broken = {
        "method": "generateContentStream",
        "response": [{"candidates": [{"content": {"role": "model", "parts": [{"text": "partial"}]}}]}],
    }
    session, _ = make_session([broken, text_chunks("whole answer")], tmp_path=tmp_path)
    events = await collect(session, "hi")
    assert "invalid_stream" not in kinds(events)
    assert session.history.contents()[-1].parts[0].text == "whole answer"


async def test_thoughts_only_and_safety(tmp_path: Path) -> None:
    thoughts = {
        "method": "generateContentStream",
        "response": [
            {
                "candidates": [
                    {
                        "content": {"role": "model", "parts": [{"text": "**Hmm**", "thought": True}]},
                        "finishReason": "STOP",
                    }
                ]
            }
        ],
    }
    session, _ = make_session([thoughts, thoughts], tmp_path=tmp_path)
    events = await collect(session, "hi")
    assert next(e for e in events if isinstance(e, ev.InvalidStream)).reason == "thoughts_only"

    blocked = {
        "method": "generateContentStream",
        "response": [{"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "SAFETY"}]}],
    }
    session, _ = make_session([blocked], tmp_path=tmp_path)
    events = await collect(session, "bad")
    assert next(e for e in events if isinstance(e, ev.InvalidStream)).reason == "safety"
    assert isinstance(events[-1], ev.Stop) and events[-1].reason == "refusal"


async def test_malformed_function_call_is_an_event(tmp_path: Path) -> None:
    bad = {
        "method": "generateContentStream",
        "response": [
            {"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "MALFORMED_FUNCTION_CALL"}]}
        ],
    }
    session, _ = make_session([bad, bad], tmp_path=tmp_path)
    events = await collect(session, "hi")
    assert next(e for e in events if isinstance(e, ev.InvalidStream)).reason == "malformed_function_call"


async def test_max_tokens_stop_reason(tmp_path: Path) -> None:
    session, _ = make_session([text_chunks("trunc", finish="MAX_TOKENS")], tmp_path=tmp_path)
    events = await collect(session, "long")
    assert isinstance(events[-1], ev.Stop) and events[-1].reason == "max_tokens"


async def test_session_turn_limit(tmp_path: Path) -> None:
    tool = TestTool("peek")
    opts = SessionOptions(max_session_turns=2)
    session, _ = make_session(
        [call_chunks(("peek", {"x": "1"})), call_chunks(("peek", {"x": "2"})), text_chunks("never")],
        [tool],
        tmp_path=tmp_path,
        options=opts,
    )
    events = await collect(session, "go")
    assert "max_session_turns" in kinds(events)
    assert isinstance(events[-1], ev.Stop) and events[-1].reason == "max_turn_requests"


async def test_prompt_turn_cap(tmp_path: Path, monkeypatch: object) -> None:
    import agent_lsp.core.prompt_loop as prompt_loop

    tool = TestTool("peek")
    lines = [call_chunks(("peek", {"x": str(i)})) for i in range(3)]
    session, _ = make_session(lines, [tool], tmp_path=tmp_path)
    old = prompt_loop.MAX_TURNS_PER_PROMPT
    prompt_loop.MAX_TURNS_PER_PROMPT = 3
    try:
        events = await collect(session, "go")
    finally:
        prompt_loop.MAX_TURNS_PER_PROMPT = old
    assert isinstance(events[-1], ev.Stop) and events[-1].reason == "max_turn_requests"
    assert_api_valid(session.history.contents())


async def test_loop_detection_fires_on_five_identical_calls_not_on_different(tmp_path: Path) -> None:
    tool = TestTool("peek")
    same = [call_chunks(("peek", {"x": "same"})) for _ in range(5)]
    session, model = make_session([*same, text_chunks("unused")], [tool], tmp_path=tmp_path)
    events = await collect(session, "go")
    loop = next(e for e in events if isinstance(e, ev.LoopDetected))
    assert loop.loop_type == "tool_call"
    assert len(tool.done) == 4  # the fifth identical call was not run
    assert model.remaining == 1
    assert_api_valid(session.history.contents())

    tool2 = TestTool("peek")
    different = [call_chunks(("peek", {"x": str(i)})) for i in range(5)]
    session, _ = make_session([*different, text_chunks("done")], [tool2], tmp_path=tmp_path)
    events = await collect(session, "go")
    assert "loop_detected" not in kinds(events)
    assert len(tool2.done) == 5


async def test_loop_detection_can_be_disabled(tmp_path: Path) -> None:
    tool = TestTool("peek")
    same = [call_chunks(("peek", {"x": "same"})) for _ in range(6)]
    session, _ = make_session(
        [*same, text_chunks("done")], [tool], tmp_path=tmp_path, options=SessionOptions(loop_detection=False)
    )
    events = await collect(session, "go")
    assert "loop_detected" not in kinds(events) and len(tool.done) == 6


async def test_content_loop_detected(tmp_path: Path) -> None:
    phrase = "I will now check the configuration file again to be sure. "
    session, _ = make_session([text_chunks(*[phrase] * 30)], tmp_path=tmp_path)
    events = await collect(session, "go")
    loop = next(e for e in events if isinstance(e, ev.LoopDetected))
    assert loop.loop_type == "content"
    varied = [f"Step {i}: this sentence talks about topic number {i * 7} in detail. " for i in range(30)]
    session, _ = make_session([text_chunks(*varied)], tmp_path=tmp_path)
    assert "loop_detected" not in kinds(await collect(session, "go"))


class _ClosingWatched:
    """The replay model, noting in ``log`` when a stream it handed out is closed (a real model releases its
    HTTP response there)."""

    def __init__(self, inner: ModelClient, log: list[str]) -> None:
        self.inner, self.log = inner, log

    async def stream(self, request: GenerateRequest) -> AsyncIterator[ModelChunk]:
        try:
            async for chunk in self.inner.stream(request):
                yield chunk
        finally:
            self.log.append("model stream closed")

    async def generate(self, request: GenerateRequest) -> ModelChunk:
        return await self.inner.generate(request)

    async def count_tokens(self, request: GenerateRequest) -> int:
        return await self.inner.count_tokens(request)


async def test_a_stream_cut_for_a_loop_is_closed_before_the_prompt_ends(tmp_path: Path) -> None:
    phrase = "I will now check the configuration file again to be sure. "
    session, model = make_session([text_chunks(*[phrase] * 30), text_chunks("fine")], tmp_path=tmp_path)
    log: list[str] = []
    session.switch_model(session.model, _ClosingWatched(model, log))
    session.sinks.append(lambda event: log.append(event.kind))
    await collect(session, "go")
    # Closed by the prompt loop, not later by the garbage collector's tasks (which also raced each other).
    assert log.index("model stream closed") < log.index("stop")
    assert log[log.index("loop_detected") :] == ["loop_detected", "model stream closed", "stop"]
    events = await collect(session, "again")
    assert [e.text for e in events if isinstance(e, ev.Content)] == ["fine"]


async def test_compression_when_threshold_passed_keeps_history_valid(tmp_path: Path) -> None:
    tool = TestTool("peek")
    big = " ".join(f"word{i}" for i in range(600))  # varied text: repetition would trip loop detection
    lines = [
        call_chunks(("peek", {"x": big}), prompt_tokens=100),
        text_chunks("first answer " + big, prompt_tokens=200),
        text_chunks("second answer " + big, prompt_tokens=600_000),  # past 0.5 of 1M
        {
            "method": "generateContent",
            "response": {
                "candidates": [
                    {
                        "content": {"role": "model", "parts": [{"text": "<state_snapshot>summary</state_snapshot>"}]},
                        "finishReason": "STOP",
                    }
                ]
            },
        },
        text_chunks("third answer", prompt_tokens=1000),
    ]
    session, model = make_session(lines, [tool], tmp_path=tmp_path)
    await collect(session, "one " + big)
    await collect(session, "two " + big)
    events = await collect(session, "three")
    compressed = next(e for e in events if isinstance(e, ev.ChatCompressed))
    assert compressed.original_tokens == 600_000 and compressed.new_tokens < 600_000
    method, request = model.requests[3]
    assert method == "generateContent"
    assert request.system_instruction and "state_snapshot" in request.system_instruction
    contents = session.history.contents()
    assert contents[0].parts[0].text == "<state_snapshot>summary</state_snapshot>"
    assert_api_valid(contents)
    assert not is_function_response_turn(contents[2])  # the kept part starts at a real user message
    assert contents[-1].parts[0].text == "third answer"


async def test_forced_compress_command_and_stats(tmp_path: Path) -> None:
    from agent_lsp.core.commands import CommandContext, Commands

    lines = [
        text_chunks("a" * 400),
        text_chunks("b" * 400, prompt_tokens=300),
        {
            "method": "generateContent",
            "response": {
                "candidates": [{"content": {"role": "model", "parts": [{"text": "snap"}]}, "finishReason": "STOP"}]
            },
        },
    ]
    session, model = make_session(lines, tmp_path=tmp_path, commands=Commands(CommandContext()))
    await collect(session, "first " + "q" * 400)
    await collect(session, "second " + "q" * 400)
    events = await collect(session, "/compress")
    assert any(isinstance(e, ev.ChatCompressed) for e in events)
    assert model.remaining == 0
    stats = await collect(session, "/stats")
    text = "".join(e.text for e in stats if isinstance(e, ev.Content))
    assert "Turns: 2" in text
    help_text = "".join(e.text for e in await collect(session, "/help") if isinstance(e, ev.Content))
    assert "/compress" in help_text and "/restore" in help_text


async def test_context_window_overflow_refuses_before_calling(tmp_path: Path) -> None:
    session, model = make_session([text_chunks("x")], tmp_path=tmp_path)
    session.state.last_prompt_tokens = 1_048_000
    events = await collect(session, "y" * 10_000)
    assert "context_window_will_overflow" in kinds(events)
    assert model.requests == []
    assert isinstance(events[-1], ev.Stop) and events[-1].reason == "max_tokens"


async def test_sinks_see_every_event_and_history_hook_runs(tmp_path: Path) -> None:
    seen: list[ev.AgentEvent] = []
    recorded: list[int] = []
    session, _ = make_session(
        [text_chunks("hi")], tmp_path=tmp_path, on_history=lambda contents: recorded.append(len(contents))
    )
    session.sinks.append(seen.append)
    events = await collect(session, "hello")
    assert seen == events and recorded == [2]


async def test_mentions_expand_into_parts(tmp_path: Path) -> None:
    from agent_lsp.core.mentions import MentionExpander, find_mentions
    from agent_lsp.model.base import Part

    assert find_mentions("read @src/a.py and @docs/my\\ file.md, mail me at a@b.c") == ["src/a.py", "docs/my file.md"]

    async def read(paths: list[str]) -> tuple[list[Part], list[str]]:
        return [Part(text=f"content of {p}") for p in paths], []

    session, model = make_session([text_chunks("ok")], tmp_path=tmp_path, expand_prompt=MentionExpander(read))
    await collect(session, "explain @a.py")
    sent = [p.text for p in model.requests[0][1].contents[0].parts]
    assert "content of a.py" in "".join(t or "" for t in sent)


async def test_tool_error_while_preparing_the_proposal_is_a_result(tmp_path: Path) -> None:
    from agent_lsp.errors import ToolError

    class Failing(TestTool):
        def build(self, params: dict[str, object]) -> object:  # type: ignore[override]
            inv = super().build(params)

            async def boom() -> None:
                raise ToolError("old_string was found 0 times; re-read the file")

            inv.confirmation = boom  # type: ignore[method-assign]
            return inv

    tool = Failing("edit", kind="edit")
    session, _ = make_session([call_chunks(("edit", {"x": "1"})), text_chunks("ok")], [tool], tmp_path=tmp_path)
    events = await collect(session, "edit")
    response = next(e for e in events if isinstance(e, ev.ToolCallResponse))
    assert response.status == "error" and "found 0 times" in (response.error or "")
    assert tool.started == []
    assert isinstance(events[-1], ev.Stop) and events[-1].reason == "end_turn"


def test_symlink_escape_message_says_why(tmp_path: Path) -> None:
    import pytest

    from agent_lsp.errors import PathOutsideWorkspace
    from agent_lsp.workspace.roots import Workspace

    root = tmp_path / "root"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "link").symlink_to(outside)
    ws = Workspace([root])
    with pytest.raises(PathOutsideWorkspace, match="through a symbolic link") as info:
        ws.resolve("link/secret.txt")
    assert str(root) in str(info.value)
    with pytest.raises(PathOutsideWorkspace) as info2:
        ws.resolve("../outside/x")
    assert "symbolic" not in str(info2.value)


async def test_attachments_are_sent_but_never_scanned_for_mentions(tmp_path: Path) -> None:
    from agent_lsp.core.mentions import MentionExpander
    from agent_lsp.model.base import Part

    asked: list[list[str]] = []

    async def read(paths: list[str]) -> tuple[list[Part], list[str]]:
        asked.append(paths)
        return [Part(text=f"content of {p}") for p in paths], []

    session, model = make_session([text_chunks("ok")], tmp_path=tmp_path, expand_prompt=MentionExpander(read))
    attached = Part(text="--- a.py ---\n@dataclass\nclass A: ...\n")
    await collect_with(session, "explain @b.py", attachments=[attached])
    assert asked == [["b.py"]]
    sent = [p.text for p in model.requests[0][1].contents[0].parts]
    assert sent[-1] == attached.text


async def collect_with(session: object, prompt: str, **kw: object) -> list[ev.AgentEvent]:
    return [e async for e in session.send(prompt, **kw)]  # type: ignore[attr-defined]


async def test_cancel_right_after_send_does_not_hang(tmp_path: Path) -> None:
    session, _ = make_session([text_chunks("never")], tmp_path=tmp_path)
    stream = session.send("hi")
    first = asyncio.ensure_future(stream.__anext__())
    await asyncio.sleep(0)  # the generator has created the task; its first step has not run yet
    session.cancel()
    events = [await asyncio.wait_for(first, 2)]
    events += [e async for e in stream]
    assert isinstance(events[-1], ev.Stop) and events[-1].reason == "cancelled"
    more = await collect(session, "again")
    assert isinstance(more[-1], ev.Stop)


async def test_switch_model_changes_who_answers_next_and_the_conversation_carries_on(tmp_path: Path) -> None:
    from agent_lsp.model.replay import ReplayModel

    session, first = make_session([text_chunks("from the first")], tmp_path=tmp_path)
    await collect(session, "one")
    second = ReplayModel([text_chunks("from the second")])
    session.switch_model("gemini-2.5-flash", second, allow_fallback=False)
    events = await collect(session, "two")
    assert [e.text for e in events if isinstance(e, ev.Content)] == ["from the second"]
    assert len(first.requests) == 1 and len(second.requests) == 1
    request = second.requests[0][1]
    assert request.model == "gemini-2.5-flash" and len(request.contents) == 3  # one, its answer, two
    assert (session.model, session.state.allow_fallback) == ("gemini-2.5-flash", False)
