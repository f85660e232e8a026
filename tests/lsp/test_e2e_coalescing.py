"""Over LSP, streamed text faster than a frame is merged into fewer agent/update notifications: in order, nothing
lost, all of it before the permission question it precedes and before the prompt's answer."""

from __future__ import annotations

from typing import Any

from tests.replay_lines import text_line

PERMISSIONS = {"agent": {"permissionRequests": True}}
WORDS = [f"w{i} " for i in range(1500)]
AFTER = WORDS[:700]


def _text_then_call(texts: list[str], name: str, args: dict[str, Any]) -> dict[str, Any]:
    line = text_line(*texts)
    chunks = line["response"]
    del chunks[-1]["candidates"][0]["finishReason"]
    chunks.append(
        {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"functionCall": {"name": name, "args": args, "id": "c1"}}]},
                    "finishReason": "STOP",
                }
            ],
            "usageMetadata": {"promptTokenCount": 20, "totalTokenCount": 23},
        }
    )
    return line


async def test_fast_text_is_merged_in_order_before_the_question_and_the_answer(launch: Any) -> None:
    editor = await launch(
        [_text_then_call(WORDS, "run_shell_command", {"command": "echo hi"}), text_line(*AFTER)],
        experimental=PERMISSIONS,
    )
    seen: list[list[dict[str, Any]]] = []
    editor.before_answer = lambda: seen.append([u["update"] for u in editor.updates])
    session = await editor.new_session()
    result = await editor.request("agent/prompt", {"sessionId": session, "prompt": "talk, then run it"})
    assert result["stopReason"] == "end_turn"
    (before,) = seen
    said = "".join(u["content"]["text"] for u in before if u["sessionUpdate"] == "agent_message_chunk")
    assert said == "".join(WORDS)
    # By the time the prompt is answered, every word has arrived, in order.
    assert editor.messages() == "".join(WORDS) + "".join(AFTER)
    chunks = [k for k in editor.kinds() if k == "agent_message_chunk"]
    assert len(chunks) < (len(WORDS) + len(AFTER)) // 4


async def test_the_first_chunk_goes_out_alone(launch: Any) -> None:
    editor = await launch([text_line("one ", "two ", "three")], extra_env={"AGENT_LSP_REPLAY_DELAY": "0.05"})
    session = await editor.new_session()
    await editor.request("agent/prompt", {"sessionId": session, "prompt": "count"})
    said = [
        u["update"]["content"]["text"] for u in editor.updates if u["update"]["sessionUpdate"] == "agent_message_chunk"
    ]
    # The first chunk after a quiet frame is never held for company (how the rest splits depends on timing).
    assert said[0] == "one " and "".join(said) == "one two three"
