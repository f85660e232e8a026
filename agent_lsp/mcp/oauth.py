"""OAuth for remote MCP servers, as the MCP spec and Gemini CLI do it: the authorization-code flow with PKCE and
dynamic client registration (the MCP SDK's, in ``oauth_provider.py``, imported only when used), tokens kept by
:class:`OAuthTokenStore` under the server's URL and refreshed when they expire.

Two uses. A connection's transport carries :func:`transport_auth`: the stored token, refreshed when it expires; a
401 there ends the connection with a message naming ``/mcp auth <server>``, never a sign-in nobody asked for.
:func:`sign_in` (``/mcp auth``, or the first connection of a server with ``oauth.enabled``) runs the whole flow:
discovery on the server's 401, registration, the browser step, the code caught by a localhost listener, the token
exchange.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from agent_lsp.mcp.config import McpServerSpec, OAuthSettings
from agent_lsp.mcp.oauth_callback import SignInFailed
from agent_lsp.mcp.oauth_store import OAuthTokenStore, TokenStoreError

if TYPE_CHECKING:
    from agent_lsp.mcp.oauth_provider import McpOAuth

logger = logging.getLogger(__name__)

SignIn = Callable[[McpServerSpec], Awaitable[None]]  # signs in to a server; raises SignInFailed

__all__ = ["SignIn", "SignInFailed", "has_tokens", "server_url", "sign_in", "signer", "transport_auth"]


def server_url(spec: McpServerSpec) -> str | None:
    """The URL a token is for: the server's streamable HTTP or SSE endpoint (None for stdio)."""
    return spec.http_url or spec.url


def transport_auth(spec: McpServerSpec) -> McpOAuth | None:
    """The auth a connection's HTTP client carries: stored tokens, refreshed; no sign-in. None for stdio."""
    url = server_url(spec)
    if url is None:
        return None
    from agent_lsp.mcp.oauth_provider import McpOAuth

    return McpOAuth(spec.name, url, spec.oauth or OAuthSettings(), OAuthTokenStore())


async def has_tokens(spec: McpServerSpec) -> bool:
    """Whether tokens are stored for ``spec``'s URL (signed in before, whether or not they still work)."""
    url = server_url(spec)
    if url is None:
        return False
    try:
        entry = await asyncio.to_thread(OAuthTokenStore().load, url)
    except TokenStoreError:
        return False
    return bool(entry and entry.get("tokens"))


async def sign_in(
    spec: McpServerSpec, present: Callable[[str], Awaitable[None]], *, timeout_s: float | None = None
) -> None:
    """Sign in to ``spec``'s server afresh and store its tokens; ``present`` shows the user the authorization
    address. SignInFailed says why it did not work."""
    url = server_url(spec)
    if url is None:
        raise SignInFailed(f"MCP server '{spec.name}' is not reached over HTTP ('url' or 'httpUrl'): no sign-in")
    from agent_lsp.mcp.transport import import_sdk

    await asyncio.to_thread(import_sdk, spec.transport)  # off the event loop, one importing thread at a time
    from agent_lsp.mcp.oauth_provider import CALLBACK_TIMEOUT_S, run_sign_in

    settings = spec.oauth or OAuthSettings()
    sse = spec.transport == "sse"
    status = await run_sign_in(spec.name, url, sse, spec.headers, settings, present, timeout_s or CALLBACK_TIMEOUT_S)
    if status in (401, 403):
        raise SignInFailed(f"the server still refuses access after the sign-in (HTTP {status})")
    if not await has_tokens(spec):
        raise SignInFailed("the server did not ask for a sign-in (it answered without one)")


def signer(notify: Callable[[str], None], open_url: Callable[[str], Awaitable[None]] | None) -> SignIn:
    """The sign-in a session offers: the address is told (``notify``, a notice every front end shows) and
    opened where the front end can (``open_url``: a browser, the editor's window/showDocument). ``open_url`` runs
    while the sign-in waits for the browser and is cancelled when the sign-in ends (an editor may show progress
    until then)."""

    async def sign_in_to(spec: McpServerSpec) -> None:
        opening: list[asyncio.Task[None]] = []

        async def open_page(url: str) -> None:
            assert open_url is not None
            try:
                await open_url(url)
            except Exception:
                logger.warning("opening the sign-in page of MCP server %r failed", spec.name, exc_info=True)

        async def present(url: str) -> None:
            notify(f"MCP server '{spec.name}' needs you to sign in: open {url}")
            if open_url is not None:  # runs beside the wait for the browser (an editor's progress bar lasts)
                opening.append(asyncio.get_running_loop().create_task(open_page(url)))

        try:
            await sign_in(spec, present)
        finally:
            for task in opening:
                task.cancel()

    return sign_in_to
