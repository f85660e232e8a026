"""End to end: a running prompt is cancelled by agent/cancel, by $/cancelRequest and by progress cancel."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from lsprotocol import types

from tests.lsp.conftest import until
from tests.replay_lines import call_line

SLEEP = call_line("run_shell_command", {"command": "sleep 30", "description": "wait"})


def _running(editor: Any) -> bool:
    return any(u["update"].get("status") == "in_progress" for u in editor.updates)


async def test_three_ways_to_cancel(launch: Any) -> None:
    editor = await launch([SLEEP, SLEEP, SLEEP])
    session = await editor.new_session(approvalMode="yolo")

    # 1. agent/cancel
    started = time.monotonic()
    prompt = asyncio.ensure_future(editor.request("agent/prompt", {"sessionId": session, "prompt": "wait"}))
    await until(lambda: _running(editor))
    editor.notify("agent/cancel", {"sessionId": session})
    assert (await asyncio.wait_for(prompt, 10))["stopReason"] == "cancelled"
    assert time.monotonic() - started < 15
    assert any(u["update"].get("status") == "failed" for u in editor.updates)

    # 2. $/cancelRequest on the agent/prompt request: the turn ends and still answers
    editor.updates.clear()
    future = editor.client.protocol.send_request("agent/prompt", {"sessionId": session, "prompt": "wait"}, msg_id="p-2")
    await until(lambda: _running(editor))
    editor.client.protocol.notify("$/cancelRequest", types.CancelParams(id="p-2"))
    result = await asyncio.wait_for(asyncio.wrap_future(future), 10)
    assert result["stopReason"] == "cancelled"

    # 3. window/workDoneProgress/cancel on the prompt's progress token
    editor.updates.clear()
    editor.client.progress_reports.clear()
    prompt = asyncio.ensure_future(editor.request("agent/prompt", {"sessionId": session, "prompt": "wait"}))
    await until(lambda: _running(editor))
    (token,) = editor.client.progress_reports
    editor.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token))
    assert (await asyncio.wait_for(prompt, 10))["stopReason"] == "cancelled"
    await until(lambda: editor.client.progress_reports[token][-1].kind == "end")
    assert editor.client.progress_reports[token][-1].message == "Cancelled"
