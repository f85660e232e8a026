"""McpManager over stdio against the real test server: registration, calls, filters, failures and shutdown."""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import replace
from pathlib import Path

import pytest

from agent_lsp.mcp.config import McpServerSpec
from agent_lsp.tools.registry import ToolRegistry
from agent_lsp.untrusted import wrap_untrusted

from .conftest import BuiltinTool, Harness, child_pids, eventually, kill_child, stdio_spec

VALID_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:\-]{0,63}$")
SERVER_TOOLS = {"add", "echo", "fail", "image", "doc", "norm", "env", "sleep", "grow", "header", "die"}


async def test_stdio_servers_register_call_filter_and_close(tmp_path: Path) -> None:
    before = set(child_pids())
    h = Harness(
        [
            stdio_spec("echo", env={"MCP_TEST_VAR": "hello"}, cwd=str(tmp_path)),
            McpServerSpec("ghost", command=str(tmp_path / "no-such-server")),
            stdio_spec("picky", include_tools=("add", "echo(text)", "fail"), exclude_tools=("fail",), trust=True),
        ],
        tmp_path,
        registry=ToolRegistry([BuiltinTool("add")]),
    )
    started = time.monotonic()
    h.manager.start()
    assert time.monotonic() - started < 0.5  # start() only schedules
    assert h.manager.status() == {"echo": "connecting", "ghost": "connecting", "picky": "connecting"}
    await h.manager.wait_ready(30)
    try:
        status = h.manager.status()
        assert status["echo"] == "connected"
        assert status["picky"] == "connected"
        assert status["ghost"].startswith("failed: ") and "no-such-server" in status["ghost"]
        assert [n.level for n in h.notices] == ["warning"]
        assert "'ghost' failed to start" in h.notices[0].message

        # Names as Gemini CLI makes them: mcp_<server>_<tool>, so a built-in of the same name never clashes.
        assert h.server_tools("echo") >= SERVER_TOOLS
        assert h.server_tools("picky") == {"add", "echo"}  # include list, minus the excluded
        assert h.tool("echo", "add").name == "mcp_echo_add"
        assert h.tool("picky", "add").name == "mcp_picky_add"
        assert h.registry.get("add") is not None and h.registry.get("add").server is None
        for t in h.registry.tools():
            assert VALID_NAME.match(t.name), t.name
        long = next(t for t in h.registry.tools() if t.server == "echo" and t.name.startswith("mcp_echo_a.very-long"))
        assert len(long.name) == 63 and long.name[30:33] == "..."
        assert sorted(h.manager.tool_names("echo")) == sorted(t.name for t in h.registry.tools() if t.server == "echo")

        # Schemas: the pydantic $ref/$defs of `norm` are inlined.
        norm = h.tool("echo", "norm")
        assert "$ref" not in json.dumps(norm.parameters) and "$defs" not in json.dumps(norm.parameters)
        assert norm.parameters["type"] == "object"
        assert norm.parameters["properties"]["point"]["properties"]["x"]["type"] == "integer"
        assert norm.parameters["required"] == ["point"]
        assert norm.declaration().parameters is norm.parameters

        # Trust and kind come through.
        assert h.tool("picky", "add").trusted_server is True
        assert h.tool("echo", "add").trusted_server is False
        assert h.tool("echo", "add").kind == "other" and h.tool("echo", "add").truncate_output

        # Calls.
        assert (await h.call("echo", "add", a=2, b=3)).llm_content == wrap_untrusted("5")
        assert (await h.call("picky", "add", a=20, b=22)).llm_content == wrap_untrusted("42")
        assert (await h.call("echo", "norm", point={"x": 3, "y": 4}, scale=2)).llm_content == wrap_untrusted("50")
        assert (await h.call("echo", "env", var="MCP_TEST_VAR")).llm_content == wrap_untrusted(f"hello|{tmp_path}")
        assert (await h.call("echo", "doc")).llm_content == wrap_untrusted("resource body")
        image = await h.call("echo", "image")
        assert isinstance(image.llm_content, list)
        inline = image.llm_content[0].inline_data
        assert inline is not None and inline.mime_type == "image/png" and inline.data.startswith(b"\x89PNG")
        failed = await h.call("echo", "fail")
        assert failed.error is not None and "always fails" in failed.error
        # Concurrent calls share one session.
        results = await asyncio.gather(*(h.call("echo", "add", a=i, b=i) for i in range(5)))
        assert [r.llm_content for r in results] == [wrap_untrusted(str(2 * i)) for i in range(5)]

        details = await h.tool("echo", "add").build({"a": 1, "b": 2}).confirmation()
        assert details is not None
        assert (details.type, details.server, details.tool, details.args) == ("mcp", "echo", "add", {"a": 1, "b": 2})

        # The server's stderr went to its log file, not to our stdout.
        log = (tmp_path / "logs" / "mcp-echo.log").read_text()
        assert "Tool name validation warning" in log
        assert len(set(child_pids()) - before) == 2
    finally:
        await h.manager.aclose()
    assert set(child_pids()) <= before  # no server process left behind
    assert h.manager.status()["echo"] == "disconnected"
    assert h.manager.status()["ghost"].startswith("failed: ")
    assert h.registry.names() == ["add"]
    await h.manager.aclose()  # a second close is harmless


async def test_servers_that_die_lose_their_tools_and_later_calls_fail(tmp_path: Path) -> None:
    before = set(child_pids())
    h = Harness([stdio_spec("crash"), stdio_spec("victim")], tmp_path)
    h.manager.start()
    await h.manager.wait_ready(30)
    try:
        assert set(h.manager.status().values()) == {"connected"}
        crash_add = h.tool("crash", "add").build({"a": 1, "b": 1})
        victim_add = h.tool("victim", "add").build({"a": 1, "b": 1})

        # Dies in the middle of a call: that call fails, the server is dropped.
        died = await h.call("crash", "die")
        assert died.error is not None and "closed the connection" in died.error
        await eventually(lambda: h.manager.status()["crash"].startswith("failed"))
        assert h.server_tools("crash") == set()
        assert "'crash' disconnected" in h.notices[0].message

        # The other server is unaffected.
        assert h.manager.status()["victim"] == "connected"
        assert (await h.call("victim", "add", a=4, b=5)).llm_content == wrap_untrusted("9")

        # Killed from outside while idle.
        kill_child("--name victim")
        await eventually(lambda: h.manager.status()["victim"].startswith("failed"))
        assert h.server_tools("victim") == set()
        assert "'victim' disconnected" in h.notices[1].message
        assert [n.level for n in h.notices] == ["warning", "warning"]

        # Invocations built before the death now give error results, not exceptions.
        for inv in (crash_add, victim_add):
            result = await inv.execute(lambda _c: None)
            assert result.error is not None and "not connected" in result.error
            assert result.error_type == "mcp_server_unavailable"
        assert h.registry.names() == []
    finally:
        await h.manager.aclose()
    assert set(child_pids()) <= before


async def test_tool_list_changes_and_call_timeouts(tmp_path: Path) -> None:
    slow = stdio_spec("live")
    spec = McpServerSpec.from_settings("live", {"command": slow.command, "args": list(slow.args), "timeout": 1000})
    assert spec.timeout_s == 1.0 and spec.connect_timeout_s(60) == 1.0
    # The same one-second call timeout, with connecting left to the default bound: a loaded machine may take
    # longer than a second to start a Python server.
    h = Harness([replace(spec, timeout_given=False)], tmp_path)
    h.manager.start()
    await h.manager.wait_ready(30)
    try:
        # The server adds a tool and says so: the new tool is registered.
        assert "fresh" not in h.server_tools("live")
        assert (await h.call("live", "grow", name="fresh")).llm_content == wrap_untrusted("grown")
        await eventually(lambda: "fresh" in h.server_tools("live"))
        assert (await h.call("live", "fresh")).llm_content == wrap_untrusted("grown")
        assert h.server_tools("live") >= SERVER_TOOLS

        # The per-server timeout (settings give milliseconds) ends a slow call with an error result.
        started = time.monotonic()
        result = await h.call("live", "sleep", seconds=10)
        assert time.monotonic() - started < 5
        assert result.error is not None and "timed out after 1 s" in result.error
        assert result.error_type == "mcp_timeout"
        # A timeout is the call's failure, not the server's.
        assert h.manager.status()["live"] == "connected"
        assert (await h.call("live", "echo", text="still here")).llm_content == wrap_untrusted("still here")

        # Cancelling the caller's task cancels the call; the session carries on.
        call = asyncio.create_task(h.call("live", "sleep", seconds=10))
        await asyncio.sleep(0.3)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert h.manager.status()["live"] == "connected"
        assert (await h.call("live", "add", a=1, b=2)).llm_content == wrap_untrusted("3")
    finally:
        await h.manager.aclose()


async def test_connect_timeout_and_close_while_connecting(tmp_path: Path) -> None:
    before = set(child_pids())
    # This server never speaks MCP, so the handshake cannot finish; it does exit when its stdin closes.
    mute = McpServerSpec("mute", command="sh", args=("-c", "cat > /dev/null"))
    slow = Harness([mute], tmp_path, connect_timeout_s=0.5)
    slow.manager.start()
    await slow.manager.wait_ready(15)
    assert slow.manager.status()["mute"] == "failed: no answer within 0.5 s"
    assert "'mute' failed to start: no answer within 0.5 s" in slow.notices[0].message
    await slow.manager.aclose()

    pending = Harness([mute], tmp_path)
    pending.manager.start()
    await eventually(lambda: any("cat > /dev/null" in cmd for cmd in child_pids().values()))
    assert pending.manager.status()["mute"] == "connecting"
    await pending.manager.aclose()
    assert pending.manager.status()["mute"] == "disconnected"
    assert pending.notices == []
    assert set(child_pids()) <= before


async def test_manager_without_servers(tmp_path: Path) -> None:
    h = Harness([], tmp_path)
    h.manager.start()
    await h.manager.wait_ready(1)
    assert h.manager.status() == {}
    await h.manager.aclose()
