"""MCP servers are pooled per agent process (agent_lsp/mcp/pool.py): sessions with the same server spec and roots
share one server process, a session that joins late gets its tools, ``/mcp refresh`` restarts it for every session,
a server's form goes to the session whose call asked for it, and the last session's close stops the process. Real
agent subprocess (raw ACP frames checked against the schema), real stdio MCP server counting its own starts."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from tests.acp.harness import RawClient, agent_argv, call_turn, text_turn, write_script

SERVER = Path(__file__).parent.parent / "mcp" / "servers" / "counted_server.py"


def _configure(project: Path, started: Path) -> None:
    (project / ".gemini").mkdir(exist_ok=True)
    settings = {"mcpServers": {"counted": {"command": sys.executable, "args": [str(SERVER), str(started)]}}}
    (project / ".gemini" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def _pids(started: Path) -> list[int]:
    return [int(line) for line in started.read_text().split()] if started.exists() else []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def _ended(pid: int) -> None:
    """Return once process ``pid`` has ended (its pidfd becomes readable); the test's timeout bounds a hang."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    ended = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_reader(fd, ended.set)
    try:
        await ended.wait()
    finally:
        loop.remove_reader(fd)
        os.close(fd)


async def _new(client: RawClient, project: Path) -> str:
    return str((await client.result("session/new", {"cwd": str(project), "mcpServers": []}, wait_s=60))["sessionId"])


async def _prompt(client: RawClient, sid: str, text: str) -> str:
    """The prompt's stop reason; the turn's updates stay in the client's checker."""
    done = await client.result(
        "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}, wait_s=120
    )
    return str(done["stopReason"])


def _finished_calls(client: RawClient, sid: str) -> list[dict[str, Any]]:
    return [
        u
        for u in client.checker.updates(sid)
        if u["sessionUpdate"] == "tool_call_update" and u.get("status") in ("completed", "failed")
    ]


async def test_ten_sessions_start_the_server_once_and_the_last_close_stops_it(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    started = tmp_path / "started.txt"
    _configure(project, started)
    script = write_script(
        tmp_path / "pool.jsonl",
        [
            text_turn("ready"),
            call_turn(("mcp_counted_echo", {"text": "late joiner"})),
            text_turn("echoed"),
            call_turn(("mcp_counted_echo", {"text": "after nine closed"})),
            text_turn("echoed again"),
        ],
    )
    async with RawClient.spawn(agent_argv(script), env, project) as client:
        await client.initialize()
        first = await _new(client, project)
        assert await _prompt(client, first, "hi") == "end_turn"  # the first prompt waits for the server
        later = [await _new(client, project) for _ in range(9)]  # joining a server that is already up
        last = later[-1]
        assert await _prompt(client, last, "echo") == "end_turn"
        [echoed] = _finished_calls(client, last)
        assert echoed["status"] == "completed" and "late joiner" in json.dumps(echoed)
        assert len(_pids(started)) == 1  # ten sessions, one server process
        [pid] = _pids(started)

        for sid in [first, *later[:-1]]:
            assert await client.result("session/close", {"sessionId": sid}) == {}
        assert _alive(pid)  # the tenth session still leases it
        assert await _prompt(client, last, "echo again") == "end_turn"
        assert [c["status"] for c in _finished_calls(client, last)] == ["completed", "completed"]

        assert await client.result("session/close", {"sessionId": last}) == {}
        await _ended(pid)  # the last lease ended: the server was stopped
        assert len(_pids(started)) == 1
    client.checker.assert_clean()


async def test_mcp_refresh_restarts_the_shared_server_for_both_sessions(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    started = tmp_path / "started.txt"
    _configure(project, started)
    script = write_script(
        tmp_path / "refresh.jsonl",
        [text_turn("ready"), call_turn(("mcp_counted_echo", {"text": "after refresh"})), text_turn("echoed")],
    )
    async with RawClient.spawn(agent_argv(script), env, project) as client:
        await client.initialize()
        one, two = await _new(client, project), await _new(client, project)
        assert await _prompt(client, one, "hi") == "end_turn"
        [before] = _pids(started)
        assert await _prompt(client, one, "/mcp refresh") == "end_turn"
        said = json.dumps(client.checker.updates(one))
        assert "counted" in said and "connected" in said
        assert len(_pids(started)) == 2  # restarted once, for both sessions
        await _ended(before)
        # The other session's tools follow the new process without it doing anything.
        assert await _prompt(client, two, "echo") == "end_turn"
        [echoed] = _finished_calls(client, two)
        assert echoed["status"] == "completed" and "after refresh" in json.dumps(echoed)
        assert len(_pids(started)) == 2
    client.checker.assert_clean()


async def test_a_shared_servers_form_goes_to_the_session_whose_call_asked(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    started = tmp_path / "started.txt"
    _configure(project, started)
    confirm = call_turn(("mcp_counted_confirm", {"question": "Go on?"}))
    script = write_script(tmp_path / "forms.jsonl", [confirm, text_turn("asked"), confirm, text_turn("asked")])
    async with RawClient.spawn(agent_argv(script), env, project) as client:
        forms: list[dict[str, Any]] = []

        async def answer(request: dict[str, Any]) -> Any:
            if request["method"] == "elicitation/create":
                forms.append(request["params"])
                return {"action": "accept", "content": {"proceed": True}}
            if request["method"] == "session/request_permission":
                return {"outcome": {"outcome": "selected", "optionId": "proceed_once"}}
            raise LookupError(request["method"])

        client.on_request = answer
        await client.initialize({"elicitation": {"form": {}}})
        one, two = await _new(client, project), await _new(client, project)
        assert await _prompt(client, two, "confirm") == "end_turn"  # the later session asks first…
        assert await _prompt(client, one, "confirm") == "end_turn"  # …then the earlier one
        assert [f["sessionId"] for f in forms] == [two, one]
        assert all("Go on?" in f["message"] for f in forms)
        for sid in (one, two):
            [done] = _finished_calls(client, sid)
            assert done["status"] == "completed" and "accept: True" in json.dumps(done)
        assert len(_pids(started)) == 1
    client.checker.assert_clean()
