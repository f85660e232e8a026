"""A session's MCP servers over LSP: ``agent/mcpServers`` (status, why a server failed, its log, tools, prompts,
resources), ``agent/mcpRestart`` (the one /mcp refresh uses), and the resources ``agent/findFiles`` adds to an
``@`` picker (see docs/protocol.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_lsp.adapters.lsp.params import RequestError, opt_str
from agent_lsp.adapters.lsp.sessions import Sessions


class McpServers:
    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions

    async def servers(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """``{sessionId}`` → ``{servers: [{name, transport, state, reason?, log?, tools, prompts, resources,
        templates}]}``, in configuration order (empty when the session has no MCP servers)."""
        from agent_lsp.mcp.describe import server_summary

        mcp = (await self.sessions.live(params).handle()).mcp
        return {
            "servers": [server_summary(s, mcp.tool_names(s.spec.name)) for s in mcp.servers()]
            if mcp is not None
            else []
        }

    async def restart(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """``{sessionId, server?}``: that server (all when none is named) stopped and connected again; answered,
        once each has connected or failed, with the servers as ``agent/mcpServers`` lists them."""
        server = opt_str(params, "server")
        mcp = (await self.sessions.live(params).handle()).mcp
        if mcp is None:
            raise RequestError("invalid_params", "this session has no MCP servers")
        if await mcp.restart([server] if server else []):
            raise RequestError("invalid_params", f"no MCP server is named {server!r}")
        return await self.servers(params)

    async def resources(self, params: Mapping[str, Any], query: str, limit: int) -> list[dict[str, Any]]:
        """The session's MCP resources for an ``@`` picker's query: none for an unknown session, one still being
        built or one without servers (the files never wait for them)."""
        live = self.sessions.open.get(str(params.get("sessionId")))
        handle = live.opening.ready if live is not None else None
        mcp = handle.mcp if handle is not None else None
        if mcp is None:
            return []
        from agent_lsp.mcp.resource_picker import find_resources

        return [hit.as_json() for hit in await find_resources(mcp, query, limit)]
