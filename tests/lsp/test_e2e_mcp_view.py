"""A session's MCP servers over LSP with the real server-everything beside one that cannot start:
agent/mcpServers (status, why, log, tools, prompts, resources), agent/mcpRestart, and the resources (a template
completed by the server's completion/complete) agent/findFiles adds to an @ picker."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from tests.mcp.test_elicitation import everything_settings

DOC = "everything:demo://resource/static/document/architecture.md"
TEMPLATE = "everything:demo://resource/dynamic/text/{resourceId}"


async def test_the_mcp_view_and_the_pickers_resources(launch: Any, tmp_path: Path) -> None:
    settings = tmp_path / "home" / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    broken = {"command": str(tmp_path / "no-such-server")}
    settings.write_text(json.dumps({"mcpServers": {"everything": everything_settings(), "broken": broken}}))
    editor = await launch([])
    session = (await editor.request("agent/newSession", {"cwd": str(editor.project)}))["sessionId"]
    listed: dict[str, Any] = {}

    async def settled() -> bool:
        answer = await editor.request("agent/mcpServers", {"sessionId": session})
        listed.update({s["name"]: s for s in answer["servers"]})
        return all(s["state"] != "connecting" for s in answer["servers"])

    async with asyncio.timeout(60):
        for _attempt in range(10_000):  # polled as the panel does: the servers connect in the background
            if await settled():
                break
            await asyncio.sleep(0.1)
    everything, failed = listed["everything"], listed["broken"]
    assert everything["state"] == "connected" and everything["transport"] == "stdio"
    assert "mcp_everything_echo" in everything["tools"]
    assert {"name": "simple-prompt", "description": "A prompt with no arguments"} in everything["prompts"]
    assert DOC in [r["mention"] for r in everything["resources"]]
    assert TEMPLATE in [t["mention"] for t in everything["templates"]]
    assert Path(everything["log"]).name == "mcp-everything.log"
    assert failed["state"] == "failed" and "no-such-server" in failed["reason"]
    assert failed["tools"] == [] and failed["resources"] == []

    async def picker(query: str) -> list[dict[str, Any]]:
        answer = await editor.request("agent/findFiles", {"query": query, "sessionId": session})
        return list(answer["resources"])

    assert [r["mention"] for r in await picker("architecture")] == [DOC]
    [row] = await picker("everything:demo://resource/dynamic/text/")
    assert row["template"] is True and row["prefix"] == "everything:demo://resource/dynamic/text/"
    # Typing the value: server-everything's completion/complete offers it back, a resource to read.
    assert [r["mention"] for r in await picker("everything:demo://resource/dynamic/text/7")] == [
        "everything:demo://resource/dynamic/text/7"
    ]
    no_session = await editor.request("agent/findFiles", {"query": "architecture"})
    assert "resources" not in no_session

    again = await editor.request("agent/mcpRestart", {"sessionId": session, "server": "everything"})
    assert {s["name"]: s["state"] for s in again["servers"]} == {"everything": "connected", "broken": "failed"}
    with pytest.raises(JsonRpcException, match="no MCP server is named 'nope'"):
        await editor.request("agent/mcpRestart", {"sessionId": session, "server": "nope"})
