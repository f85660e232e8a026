"""Cancellation: while the model streams, while a permission request waits, while a shell command runs, and
through ``$/cancel_request``. The prompt answers ``cancelled`` and nothing follows that answer."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from acp import text_block

from tests.acp.editor import EditorClient, connect
from tests.acp.harness import RawClient, SchemaChecker, agent_argv, call_turn, text_turn, write_script

QUIET_S = 0.6  # how long we watch for stray frames after a cancelled prompt answered


def _answer_index(checker: SchemaChecker, rid: Any) -> int:
    return next(i for i, f in enumerate(checker.frames) if f.get("id") == rid and "method" not in f)


def _after(checker: SchemaChecker, index: int, session_id: str) -> list[dict[str, Any]]:
    return [
        f
        for f in checker.frames[index + 1 :]
        if isinstance(f.get("params"), dict) and f["params"].get("sessionId") == session_id
    ]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"  # a zombie is dead; only its parent's bookkeeping remains


async def test_cancel_while_streaming_then_prompt_again(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    words = [f"w{i} " for i in range(60)]
    script = write_script(tmp_path / "stream.jsonl", [text_turn(*words), text_turn("after")])
    async with RawClient.spawn(agent_argv(script), {**env, "AGENT_LSP_REPLAY_DELAY": "0.05"}, project) as client:
        await client.initialize()
        sid = (await client.result("session/new", {"cwd": str(project), "mcpServers": []}))["sessionId"]
        rid, answer = await client.start_request(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "talk"}]}
        )
        await client.wait_for(
            lambda: any(u["sessionUpdate"] == "agent_message_chunk" for u in client.checker.updates(sid))
        )
        await client.notify("session/cancel", {"sessionId": sid})
        response = await asyncio.wait_for(answer, 10)
        assert response["result"] == {"stopReason": "cancelled"}
        await asyncio.sleep(QUIET_S)
        assert _after(client.checker, _answer_index(client.checker, rid), sid) == []
        chunks = [u for u in client.checker.updates(sid) if u["sessionUpdate"] == "agent_message_chunk"]
        assert 0 < len(chunks) < len(words)

        again = await client.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "more"}]})
        assert again == {"stopReason": "end_turn"}
        assert client.checker.updates(sid)[-1]["sessionUpdate"] in ("agent_message_chunk", "usage_update")
    client.checker.assert_clean()


async def test_cancel_during_permission_wait(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    script = write_script(
        tmp_path / "perm.jsonl",
        [call_turn(("replace", {"file_path": "src/app.py", "old_string": "'Hello '", "new_string": "'Bye '"}))],
    )
    asked = asyncio.Event()
    never = asyncio.Event()

    async def hold(request: dict[str, Any]) -> str:
        asked.set()
        await never.wait()  # the user never answers
        return "proceed_once"

    editor = EditorClient(answer=hold)
    async with connect(editor, agent_argv(script), env, project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        prompt = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("edit")]))
        await asyncio.wait_for(asked.wait(), 10)
        await conn.cancel(session_id=session.session_id)
        response = await asyncio.wait_for(prompt, 10)
        assert response.stop_reason == "cancelled"
        await asyncio.sleep(QUIET_S)
        checker = editor.checker
        index = next(i for i, f in enumerate(checker.frames) if f.get("result") == {"stopReason": "cancelled"})
        assert _after(checker, index, session.session_id) == []
    editor.checker.assert_clean()
    assert "'Hello '" in (project / "src" / "app.py").read_text()
    final = [u for u in editor.updates() if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "failed"]
    assert len(final) == 1


async def test_cancel_during_shell_kills_its_processes(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    command = "echo $$ > shell.pid; sleep 30 & echo $! > child.pid; echo started; wait"
    script = write_script(tmp_path / "shell.jsonl", [call_turn(("run_shell_command", {"command": command}))])
    async with RawClient.spawn(agent_argv(script, "--approval-mode", "yolo"), env, project) as client:
        await client.initialize()
        sid = (await client.result("session/new", {"cwd": str(project), "mcpServers": []}))["sessionId"]
        rid, answer = await client.start_request(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "run"}]}
        )

        def started() -> bool:
            return any(
                "started" in str(u.get("content"))
                for u in client.checker.updates(sid)
                if u.get("status") == "in_progress"
            )

        await client.wait_for(started)
        pids = [int((project / name).read_text()) for name in ("shell.pid", "child.pid")]
        assert all(_alive(p) for p in pids)
        await client.notify("session/cancel", {"sessionId": sid})
        response = await asyncio.wait_for(answer, 10)
        assert response["result"] == {"stopReason": "cancelled"}
        # The answer comes only after the tool finished killing its process group.
        assert [p for p in pids if _alive(p)] == []
        await asyncio.sleep(QUIET_S)
        assert _after(client.checker, _answer_index(client.checker, rid), sid) == []
        final = [u for u in client.checker.updates(sid) if u.get("status") == "failed"]
        assert len(final) == 1
    client.checker.assert_clean()


async def test_cancel_request_for_a_prompt(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path / "slow.jsonl", [text_turn(*[f"x{i} " for i in range(80)])])
    async with RawClient.spawn(agent_argv(script), {**env, "AGENT_LSP_REPLAY_DELAY": "0.05"}, project) as client:
        await client.initialize()
        sid = (await client.result("session/new", {"cwd": str(project), "mcpServers": []}))["sessionId"]
        rid, answer = await client.start_request(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]}
        )
        await client.wait_for(lambda: bool(client.checker.updates(sid)[1:]))
        await client.notify("$/cancel_request", {"requestId": rid})
        response = await asyncio.wait_for(answer, 10)
        assert response["result"] == {"stopReason": "cancelled"}
        await asyncio.sleep(QUIET_S)
        assert _after(client.checker, _answer_index(client.checker, rid), sid) == []
        # A cancel for a request that already finished is ignored; the agent keeps serving.
        await client.notify("$/cancel_request", {"requestId": rid})
        listed = await client.result("session/list", {"cwd": str(project)})
        assert [s["sessionId"] for s in listed["sessions"]] == [sid]
    client.checker.assert_clean()
