"""The per-entry REST JSON the Gemini client keeps (gemini/history.py, WireCache) follows every way the history
changes: appended turns, compression, a rolled-back prompt, an edited or restored entry; what leaves it is freed."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Any

from agent_lsp import events as ev
from agent_lsp.model import wire
from agent_lsp.model.base import Content, FunctionCall, FunctionResponse, Part
from agent_lsp.model.gemini import GeminiClient
from agent_lsp.model.gemini.history import WireCache, wire_content
from tests.core.conftest import collect, make_session
from tests.fakes.fake_gemini import FakeGemini
from tests.model.helpers import text_stream


def fresh(history: tuple[Content, ...] | list[Content]) -> list[dict[str, Any]]:
    """What a client without any cache would send for ``history``."""
    return [wire_content(wire.content_to_json(c)) for c in history]


def turn(i: int) -> list[Content]:
    return [Content("user", (Part(text=f"question {i}"),)), Content("model", (Part(text=f"answer {i}"),))]


def test_cached_json_matches_a_fresh_conversion_however_the_history_changes() -> None:
    cache = WireCache()
    history = [c for i in range(20) for c in turn(i)]
    assert cache.contents(history) == fresh(history)
    history += turn(20)  # a prompt answered: appended
    assert cache.contents(history) == fresh(history)
    # Compressed: a summary and its acknowledgement replace the oldest part, the newest is kept as is.
    history = [Content("user", (Part(text="<state_snapshot>s</state_snapshot>"),)), *turn(99)[1:], *history[-6:]]
    assert cache.contents(history) == fresh(history)
    history = history[:-2]  # rolled back to a mark (a prompt the model never answered)
    assert cache.contents(history) == fresh(history)
    # Edited in place: the same position holds a new entry (a merged model turn, a restored checkpoint).
    history[-1] = Content("model", (Part(text="answer edited"), Part(function_call=FunctionCall("ls", {}, "c1"))))
    history.append(Content("user", (Part(function_response=FunctionResponse("ls", {"output": "a"}, "c1")),)))
    sent = cache.contents(history)
    assert sent == fresh(history)
    assert sent[-2]["parts"][0] == {"text": "answer edited"}
    # An entry equal in value but a different object converts the same.
    history[0] = Content(history[0].role, history[0].parts)
    assert cache.contents(history) == fresh(history)


def test_entries_that_left_the_history_are_released() -> None:
    cache = WireCache()
    old = [c for i in range(200) for c in turn(i)]
    refs = [weakref.ref(c) for c in old]
    cache.contents(old)
    kept = old[-4:]
    del old
    history = [Content("user", (Part(text="summary"),)), Content("model", (Part(text="ok"),)), *kept]
    for _ in range(3):  # the cache sheds what is no longer in the history once it has grown past twice its size
        assert cache.contents(history) == fresh(history)
    gc.collect()
    alive = sum(r() is not None for r in refs)
    assert alive == len(kept)


async def test_a_compressed_history_reaches_the_server_exactly(
    fake: FakeGemini, client: GeminiClient, tmp_path: Path
) -> None:
    big = " ".join(f"word{i}" for i in range(300))  # varied text: repetition would trip loop detection
    snapshot = "<state_snapshot>s</state_snapshot>"
    summary = {"candidates": [{"content": {"role": "model", "parts": [{"text": snapshot}]}}]}
    usage = {"promptTokenCount": 600_000, "totalTokenCount": 600_010}  # past half of a 1M-token window
    fake.push(
        text_stream("first " + big),
        [{**text_stream("second " + big)[0], "usageMetadata": usage}],
        summary,  # the compression's generateContent
        text_stream("third"),
    )
    session, _ = make_session([], tmp_path=tmp_path)
    session.switch_model(session.model, client)
    await collect(session, "one " + big)
    await collect(session, "two " + big)
    events = await collect(session, "three")
    assert any(isinstance(e, ev.ChatCompressed) for e in events)
    streams = [r for r in fake.requests if r.action == "streamGenerateContent"]
    history = session.history.contents()
    assert history[0].parts[0].text == snapshot
    # The last request carried the compressed history and the new prompt (everything but the answer to it).
    assert streams[-1].body["contents"] == fresh(history[:-1])


async def test_a_prompt_the_model_never_answered_is_not_sent_again(
    fake: FakeGemini, client: GeminiClient, tmp_path: Path
) -> None:
    fake.push(text_stream("first"), {"status": 400, "message": "bad request"}, text_stream("third"))
    session, _ = make_session([], tmp_path=tmp_path)
    session.switch_model(session.model, client)
    await collect(session, "one")
    events = await collect(session, "two")
    assert any(isinstance(e, ev.Error) for e in events)
    await collect(session, "three")
    sent = [r.body["contents"] for r in fake.requests if r.action == "streamGenerateContent"]
    assert [c["parts"][0]["text"] for c in sent[-1]] == ["one", "first", "three"]
    assert sent[-1] == fresh(session.history.contents()[:-1])
