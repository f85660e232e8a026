"""``/mcp auth [server]``: sign in to an MCP server over OAuth, then connect it again (Gemini CLI's command)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lsp.mcp.oauth_callback import SignInFailed

if TYPE_CHECKING:
    from agent_lsp.mcp.connection import ServerConnection
    from agent_lsp.mcp.manager import McpManager


async def mcp_auth(manager: McpManager, args: str) -> str:
    """Sign in to the named server and reconnect it; without a name, list the servers that use OAuth."""
    name = args.strip()
    servers = {srv.spec.name: srv for srv in manager.servers()}
    if not name:
        names = [srv.spec.name for srv in servers.values() if _uses_oauth(srv)]
        if not names:
            return "No MCP servers are configured with OAuth authentication."
        listed = "\n".join(f"- {n}" for n in names)
        return f"MCP servers with OAuth authentication:\n{listed}\n\nUse `/mcp auth <server>` to sign in."
    srv = servers.get(name)
    if srv is None:
        return f"MCP server '{name}' is not configured."
    if manager.sign_in is None:
        return "Signing in to MCP servers is not offered here."
    try:
        await manager.sign_in(srv.spec)
    except SignInFailed as exc:
        return f"Signing in to MCP server '{name}' failed: {exc}"
    await manager.restart([name])
    state = manager.status().get(name, "disconnected")
    return f"Signed in to MCP server '{name}'; reconnected: {state}."


def _uses_oauth(srv: ServerConnection) -> bool:
    """Configured with ``oauth.enabled``, or refused us for want of a token (as Gemini CLI lists them)."""
    oauth = srv.spec.oauth
    return (oauth is not None and oauth.enabled) or getattr(srv.auth, "problem", None) is not None
