"""An MCP server's OAuth sign-in from an LSP editor: the agent asks the editor to open the sign-in page in the
user's browser (window/showDocument, external), the "browser" (this test, following the page's redirects as a
browser would) signs in, and the server's tool then works in the session's first prompt."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from pathlib import Path
from typing import Any

from tests.lsp.conftest import until
from tests.mcp.test_oauth import admin, start_oauth_server
from tests.replay_lines import call_line, text_line


async def test_the_editor_opens_the_sign_in_page_and_the_tool_works(launch: Any, tmp_path: Path) -> None:
    server = start_oauth_server()
    try:
        settings = tmp_path / "home" / ".gemini" / "settings.json"
        settings.parent.mkdir(parents=True)
        entry = {"httpUrl": f"{server.base}/mcp", "oauth": {"enabled": True}, "trust": True}
        settings.write_text(json.dumps({"mcpServers": {"secure": entry}}))
        script = [call_line("mcp_secure_echo", {"text": "from the editor"}), text_line("Done.")]
        editor = await launch(script)
        session = await editor.new_session()
        prompt = asyncio.ensure_future(editor.request("agent/prompt", {"sessionId": session, "prompt": "go"}))
        await until(lambda: bool(editor.client.shown_documents), 60)
        [page] = editor.client.shown_documents
        assert page.external is True and page.uri.startswith(f"{server.base}/authorize?")

        def browse() -> None:  # the user's browser, following the authorization server's redirect to the agent
            with urllib.request.urlopen(page.uri, timeout=30) as answer:
                answer.read()

        await asyncio.to_thread(browse)
        assert await prompt == {"stopReason": "end_turn"}
        told = [m.message for m in editor.client.messages]
        said = " ".join(told) + json.dumps(editor.updates)
        assert "MCP server 'secure' needs you to sign in: open" in said
        done = [
            u["update"]
            for u in editor.updates
            if u["update"]["sessionUpdate"] == "tool_call_update" and u["update"].get("status") == "completed"
        ]
        assert done, editor.updates
        assert "from the editor (for a signed-in client: True)" in json.dumps(done)
        assert admin(server, "/test/stats")["authorizations"] == 1
        # A progress bar while the sign-in waited for the browser, ended once it was over.
        [reports] = [r for t, r in editor.client.progress_reports.items() if str(t).startswith("agent-sign-in-")]
        assert reports[0].kind == "begin" and reports[0].title == "Signing in to an MCP server"
        await until(lambda: reports[-1].kind == "end")
    finally:
        server.stop()
