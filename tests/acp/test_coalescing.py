"""Streamed text faster than a frame is merged into fewer session/update messages: in order, nothing lost,
never ahead of or behind a non-text frame (a tool call, a permission request, the prompt's answer)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp import text_block

from tests.acp.editor import EditorClient, connect
from tests.acp.harness import agent_argv, text_turn, usage, write_script

WORDS = [f"w{i} " for i in range(1500)]


def _streamed_call(texts: list[str], call: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """A stream of many text chunks, then a function call in its own last chunk."""
    chunks: list[dict[str, Any]] = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": t}]}}]} for t in texts
    ]
    name, args = call
    chunks.append(
        {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"functionCall": {"name": name, "args": args, "id": "c1"}}]},
                    "finishReason": "STOP",
                }
            ],
            "usageMetadata": usage(),
        }
    )
    return {"method": "generateContentStream", "response": chunks}


def _kind(frame: dict[str, Any]) -> str:
    if frame.get("method") == "session/update":
        return str(frame["params"]["update"]["sessionUpdate"])
    return str(frame.get("method") or ("answer" if "result" in frame else "other"))


async def test_fast_text_is_merged_in_order_and_flushed_before_the_question(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    after = WORDS[:700]
    script = write_script(
        tmp_path / "fast.jsonl",
        [
            _streamed_call(WORDS, ("write_file", {"file_path": "new.txt", "content": "x\n"})),
            text_turn(*after),
        ],
    )
    editor = EditorClient()
    async with connect(editor, agent_argv(script), env, project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("write it")])
    assert response.stop_reason == "end_turn"
    editor.checker.assert_clean()
    frames = editor.checker.frames
    kinds = [_kind(f) for f in frames]
    ask = kinds.index("session/request_permission")
    call = kinds.index("tool_call")
    chunks = [i for i, k in enumerate(kinds) if k == "agent_message_chunk"]
    text = [frames[i]["params"]["update"]["content"]["text"] for i in chunks]
    before = [t for i, t in zip(chunks, text, strict=True) if i < call]
    later = [t for i, t in zip(chunks, text, strict=True) if i > ask]
    # Every word, in order, on the right side of the tool call and its question.
    assert "".join(before) == "".join(WORDS)
    assert "".join(later) == "".join(after)
    assert len(before) + len(later) == len(chunks)
    # Merged: far fewer messages than chunks (a client draws once a frame, not once a token).
    assert len(chunks) < (len(WORDS) + len(after)) // 4


async def test_the_first_chunk_goes_out_alone(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path / "slow.jsonl", [text_turn("one ", "two ", "three")])
    editor = EditorClient()
    slow = {**env, "AGENT_LSP_REPLAY_DELAY": "0.05"}
    async with connect(editor, agent_argv(script), slow, project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("count")])
    editor.checker.assert_clean()
    said = [u["content"]["text"] for u in editor.updates() if u["sessionUpdate"] == "agent_message_chunk"]
    # The first chunk after a quiet frame is never held for company (how the rest splits depends on timing).
    assert said[0] == "one " and "".join(said) == "one two three"
