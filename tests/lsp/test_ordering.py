"""ordering.AnswersFirst on its own: what a request set going waits for its answer, from any task or thread."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agent_lsp.adapters.lsp.ordering import AnswersFirst
from agent_lsp.adapters.lsp.outbox import frame


def _names(frames: list[bytes]) -> list[Any]:
    """Each frame's method, or the id it answers (frames may be split or joined: read them as one stream)."""
    stream, names = b"".join(frames), []
    while stream:
        head, _, rest = stream.partition(b"\r\n\r\n")
        length = int(head.split(b":")[1])
        message = json.loads(rest[:length])
        names.append(message.get("method", message.get("id")))
        stream = rest[length:]
    return names


def _answer(rid: Any) -> bytes:
    return frame({"jsonrpc": "2.0", "id": rid, "result": None})


def _note(name: str) -> bytes:
    return frame({"jsonrpc": "2.0", "method": name, "params": {}})


def _out() -> tuple[AnswersFirst, list[bytes], list[Any]]:
    written: list[bytes] = []
    answered: list[Any] = []
    return AnswersFirst(written.append, lambda: None, answered.append), written, answered


async def test_a_task_and_a_thread_set_going_are_written_behind_the_answer() -> None:
    out, written, answered = _out()
    started: list[asyncio.Task[None]] = []

    async def work() -> None:
        out.send(_note("task"))
        await asyncio.to_thread(out.send, _note("thread"))  # to_thread carries the request along

    with out.handling(7):
        out.send(_note("while-handling"))  # the answer may wait for this: it goes at once
        started.append(asyncio.get_running_loop().create_task(work()))
    await started[0]
    out.send(_note("unrelated"))  # not set going by request 7
    assert _names(written) == ["while-handling", "unrelated"]
    out.write(_answer(7))
    assert _names(written) == ["while-handling", "unrelated", 7, "task", "thread"]
    assert answered == [7]
    out.send(_note("later"))
    assert _names(written)[-1] == "later"


async def test_answers_are_found_in_any_split_of_the_stream() -> None:
    out, written, answered = _out()
    for rid in (1, "two"):
        with out.handling(rid):
            asyncio.get_running_loop().call_soon(out.send, _note(f"after-{rid}"))
    await asyncio.sleep(0)
    assert written == []
    both = _answer(1) + frame({"jsonrpc": "2.0", "id": "two", "error": {"code": -1, "message": "no"}})
    out.write(both[:10])  # a header cut in two, then the rest with two frames in one write
    assert answered == []
    out.write(both[10:])
    assert answered == [1, "two"]
    assert _names(written) == [1, "two", "after-1", "after-two"]


async def test_an_answer_written_before_the_handler_returned_holds_nothing() -> None:
    """pygls answers a cancelled request at once while its handler may still run: nothing waits for ever."""
    out, written, _ = _out()
    with out.handling(3):
        out.write(_answer(3))
        asyncio.get_running_loop().call_soon(out.send, _note("after"))
    await asyncio.sleep(0)
    assert _names(written) == [3, "after"]


def test_notifications_and_our_own_frames_outside_a_request_go_at_once() -> None:
    out, written, answered = _out()
    with out.handling(None):  # a notification's handler
        out.send(_note("n"))
    out.write(frame({"jsonrpc": "2.0", "method": "window/logMessage", "params": {}}))
    assert _names(written) == ["n", "window/logMessage"] and answered == []
