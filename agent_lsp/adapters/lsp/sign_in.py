"""An MCP server's sign-in page, from an LSP editor: opened in the user's browser by the editor
(``window/showDocument`` with ``external``), with a progress bar while the sign-in waits for the browser."""

from __future__ import annotations

import asyncio
import logging
import uuid

from agent_lsp.adapters.lsp import client as caps
from agent_lsp.adapters.lsp.client import ClientRequestError, LspClient

log = logging.getLogger(__name__)


async def open_sign_in_page(client: LspClient, url: str) -> None:
    """Open ``url`` (its address is in a window/showMessage too) and show progress until the sign-in ends, which
    cancels this. An editor without ``window/showDocument`` gets the user's browser opened by us."""
    token = await _progress(client)
    try:
        if caps.capability(client.capabilities, "window.showDocument.support"):
            await client.request("window/showDocument", {"uri": url, "external": True})
        else:
            from agent_lsp.mcp.oauth_callback import open_in_browser

            await open_in_browser(url)
        if token is not None:
            await asyncio.Event().wait()  # the progress stays until the sign-in is over
    finally:
        if token is not None:
            client.notify("$/progress", {"token": token, "value": {"kind": "end", "message": "Sign-in over"}})


async def _progress(client: LspClient) -> str | None:
    if not caps.capability(client.capabilities, "window.workDoneProgress"):
        return None
    token = f"agent-sign-in-{uuid.uuid4().hex[:12]}"
    try:
        await client.request("window/workDoneProgress/create", {"token": token})
    except ClientRequestError as exc:
        log.info("no progress for the sign-in: %s", exc)
        return None
    begin = {"kind": "begin", "title": "Signing in to an MCP server", "message": "Waiting for the browser"}
    client.notify("$/progress", {"token": token, "value": begin})
    return token
