"""Streamed text is recorded as few whole records: consecutive chunks merge, nothing is lost or reordered."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from agent_lsp import events as ev
from agent_lsp.store.sessions import TEXT_FLUSH_S, SessionStore


def _records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


async def test_consecutive_text_chunks_become_one_record_before_the_next_event(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    rec = store.recorder("merge", tmp_path)
    rec(ev.UserMessage("hi"))
    pieces = [f"word{i} " for i in range(500)]
    for piece in pieces:
        rec(ev.Content(piece))
    rec(ev.Thought("Plan", "next"))  # any other event writes the held text first, so order is kept
    rec(ev.Content("tail"))
    rec(ev.Stop("end_turn", ev.Usage()))
    rec.close()
    loaded = store.load("merge")
    assert loaded.events == [
        ev.UserMessage("hi"),
        ev.Content("".join(pieces)),
        ev.Thought("Plan", "next"),
        ev.Content("tail"),
        ev.Stop("end_turn", ev.Usage()),
    ]
    assert len(_records(store.path_for("merge"))) == 6  # header + five events, not 504 lines


async def test_held_text_is_written_soon_without_another_event(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    rec = store.recorder("stall", tmp_path)
    rec(ev.Content("the model then goes quiet"))
    path = store.path_for("stall")
    for _ in range(200):  # a stalled stream: only the timer can write the text
        if len(_records(path)) == 2:
            break
        await asyncio.sleep(TEXT_FLUSH_S)
    assert _records(path)[1]["event"] == {
        "kind": "content",
        "text": "the model then goes quiet",
        "message_id": "",
        "compaction_id": "",
    }
    rec.close()


async def test_title_history_and_close_write_held_text_first(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    rec = store.recorder("order", tmp_path)
    rec(ev.Content("a"))
    rec.set_title("T")
    rec(ev.Content("b"))
    rec.close()
    kinds = [(r["type"], (r.get("event") or {}).get("text")) for r in _records(store.path_for("order"))]
    assert kinds == [("session", None), ("event", "a"), ("title", None), ("event", "b")]


async def test_text_of_two_messages_is_two_records_each_with_its_id(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    rec = store.recorder("ids", tmp_path)
    for text, message_id in (("a", "m1"), ("b", "m1"), ("c", "m2"), ("d", "m2")):
        rec(ev.Content(text, message_id))
    rec.close()
    assert store.load("ids").events == [ev.Content("ab", "m1"), ev.Content("cd", "m2")]
