"""Usage follows the conversation over LSP (a real server subprocess, ``agent/update``): after ``agent/rewind``, its
undo, ``agent/setModel`` and ``agent/fork`` an estimated ``usage_update`` says the context the next request will
carry against the model's window, with the cost spent kept; ``/compress`` is drawn as the compaction item only."""

from __future__ import annotations

from typing import Any

from tests.lsp.conftest import until
from tests.lsp.test_e2e_protocol_now import _big, _chunks, _summary
from tests.replay_lines import text_line


def _usage(editor: Any, session: str) -> list[dict[str, Any]]:
    return [
        u["update"]
        for u in editor.updates
        if u["sessionId"] == session and u["update"]["sessionUpdate"] == "usage_update"
    ]


async def test_usage_follows_rewind_undo_model_switch_and_fork(launch: Any) -> None:
    long = " ".join(f"word{i}" for i in range(400))  # varied: repeated text would trip loop detection
    answer = "Again " + long
    editor = await launch([_big(text_line("Hello " + long), 4000), _big(text_line(answer), 6000)])
    session = await editor.new_session()
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "first " + long})
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "second " + long})
    spent = _usage(editor, session)[-1]
    assert spent["used"] == 6000 and "estimated" not in spent["_meta"]["agent-lsp"]

    await editor.request("agent/rewind", {"sessionId": session, "messageIndex": 1})
    rewound = _usage(editor, session)[-1]
    ours = rewound["_meta"]["agent-lsp"]
    assert ours["estimated"] is True and ours["session"]["requests"] == 2
    # The second request carried 6000 tokens; without "second …" (about a quarter of its characters) and with
    # the fixed part (system prompt, tools) kept, the next one carries this many.
    dropped = len("second " + long) // 4
    assert 6000 - dropped - 1 <= rewound["used"] <= 6000 - dropped + 1
    assert rewound["cost"] == spent["cost"] and rewound["size"] == 1_048_576  # a rewind gives no cost back

    await editor.request("agent/rewind", {"sessionId": session, "undo": True})
    undone = _usage(editor, session)[-1]
    # The history is back and the answer to "second …" is in it now: the request after it carries that too.
    assert 6000 + len(answer) // 4 <= undone["used"] <= 6000 + len(answer) // 4 + 1
    assert undone["_meta"]["agent-lsp"]["estimated"] is True and undone["cost"] == spent["cost"]

    seen = len(_usage(editor, session))
    await editor.request("agent/setModel", {"sessionId": session, "modelId": "gemini-1.5-pro"})
    await until(lambda: len(_usage(editor, session)) > seen)  # it follows the answer (answers go first)
    switched = _usage(editor, session)[-1]
    assert (switched["used"], switched["size"]) == (undone["used"], 2_097_152)  # the new model's window

    forked = await editor.request("agent/fork", {"sessionId": session, "messageIndex": 1})
    first = _usage(editor, forked["sessionId"])[-1]  # after its replay, before the answer
    assert (first["used"], first["size"]) == (rewound["used"], 2_097_152)
    assert first["_meta"]["agent-lsp"]["estimated"] is True


async def test_compress_is_drawn_once(launch: Any) -> None:
    """Our LSP clients draw every compaction as an item: /compress does not say it again as text."""
    long = " ".join(f"word{i}" for i in range(300))
    editor = await launch(
        [
            _big(text_line("Hello " + long), 5000),
            _big(text_line("Again " + long), 6000),
            _summary("<state_snapshot>hello and again</state_snapshot>"),
        ]
    )
    session = await editor.new_session()
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "first " + long})
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "second " + long})
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "/compress"})
    steps = [u["update"] for u in editor.updates if u["update"]["sessionUpdate"] == "compaction_update"]
    assert [s["status"] for s in steps] == ["in_progress", "completed"]
    texts = [t for t, _ in _chunks(editor, session, "agent_message_chunk")]
    assert not any("ompressed" in t for t in texts)
    after = _usage(editor, session)[-1]  # the compressed conversation's size, before any request measures it
    assert after["_meta"]["agent-lsp"]["estimated"] is True and after["used"] < 6000
