"""The prompt gate both adapters use (adapters/live.py), on a real session opened by the runtime: one prompt at a
time from its request's arrival, a cancel before the turn starts, a cancel of the running turn."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agent_lsp import events as ev
from agent_lsp.adapters.live import LiveSession
from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup
from tests.replay_lines import text_line


async def _live(tmp_path: Path, *, chunk_delay: float = 0.0) -> LiveSession:
    project = tmp_path / "project"
    project.mkdir()
    script = tmp_path / "script.jsonl"
    script.write_text("\n".join(json.dumps(text_line(*"abcdefgh")) for _ in range(2)) + "\n")
    env = {**os.environ, "AGENT_LSP_TRUST_WORKSPACE": "true"}
    runtime = Runtime(RuntimeOptions(fake_responses=script, env=env, chunk_delay=chunk_delay))
    opening = await runtime.open_session(SessionSetup(cwd=project, confirmer=AutoConfirmer()))
    return LiveSession(opening=opening)


async def test_one_prompt_at_a_time_and_a_cancel_before_the_turn_starts(tmp_path: Path) -> None:
    live = await _live(tmp_path)
    assert live.claim()
    assert not live.claim()  # a second prompt right behind the first, before any await: refused
    live.cancel()  # the session may still be building: nothing runs yet, the claimed prompt will not start
    assert live.cancel_pending
    live.release()
    assert not live.cancel_pending and live.claim()  # the next prompt starts clean
    handle = await live.opening.handle()
    try:
        events = [e async for e in handle.session.send("hi")]
        assert isinstance(events[-1], ev.Stop) and events[-1].reason == "end_turn"
    finally:
        live.release()
        await handle.aclose()


async def test_a_cancel_stops_the_running_turn_and_a_running_session_refuses_a_claim(tmp_path: Path) -> None:
    live = await _live(tmp_path, chunk_delay=0.2)
    handle = await live.opening.handle()
    try:
        assert live.claim()
        stream = handle.session.send("hi")
        first = await anext(stream)
        assert isinstance(first, ev.UserMessage)
        live.release()
        assert not live.claim()  # the built session runs a prompt (one not claimed here): still refused
        live.cancel()
        rest = [e async for e in stream]
        assert isinstance(rest[-1], ev.Stop) and rest[-1].reason == "cancelled"
        assert not live.cancel_pending
        assert live.claim()
    finally:
        live.release()
        await handle.aclose()
