"""An MCP server's OAuth sign-in from an ACP editor: a server the editor hands over that asks for a sign-in is
reported naming `/mcp auth`; the command's sign-in page reaches the editor as an agent message with the address,
the user's browser (``BROWSER``, a stand-in following the page's redirects) signs in, and the server connects."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from tests.acp.harness import RawClient, agent_argv, agent_env, write_script
from tests.mcp.test_oauth import SERVERS, admin, start_oauth_server


async def test_mcp_auth_signs_in_and_the_page_is_an_agent_message(
    tmp_path: Path, project: Path, _private_home: Path
) -> None:
    server = start_oauth_server()
    visits = tmp_path / "browser.log"
    env = agent_env(
        _private_home, BROWSER=f"{sys.executable} {SERVERS / 'oauth_browser.py'}", OAUTH_BROWSER_LOG=str(visits)
    )
    try:
        secure = {"type": "http", "name": "secure", "url": f"{server.base}/mcp", "headers": []}
        async with RawClient.spawn(agent_argv(write_script(tmp_path / "s.jsonl", [])), env, project) as client:
            await client.initialize()
            sid = (await client.result("session/new", {"cwd": str(project), "mcpServers": [secure]}))["sessionId"]

            def said() -> str:
                updates = client.checker.updates(sid)
                return "".join(u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk")

            async def ask(text: str) -> object:
                prompt = [{"type": "text", "text": text}]
                return await client.result("session/prompt", {"sessionId": sid, "prompt": prompt}, wait_s=60)

            for _ in range(100):  # `/mcp` until the first connection has failed (it runs in the background)
                await ask("/mcp")
                if "failed: it requires authentication" in said():
                    break
                await asyncio.sleep(0.1)
            answer = await ask("/mcp auth secure")
        assert answer == {"stopReason": "end_turn"}
        assert (
            "MCP server 'secure' failed to start: it requires authentication: sign in with `/mcp auth secure`" in said()
        )
        assert f"MCP server 'secure' needs you to sign in: open {server.base}/authorize?" in said()
        assert "Signed in to MCP server 'secure'; reconnected: connected." in said()
        assert len(visits.read_text().splitlines()) == 1
        assert admin(server, "/test/stats")["authorizations"] == 1
        tokens = json.loads((_private_home / ".agent-lsp" / "mcp-oauth.json").read_text())["servers"]
        assert list(tokens) == [f"{server.base}/mcp"]
        client.checker.assert_clean()
    finally:
        server.stop()
