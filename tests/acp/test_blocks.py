"""Client MCP server entries → our mcpServers settings shape (content blocks: tests/adapters/test_content.py)."""

from __future__ import annotations

import pytest

from agent_lsp.adapters.acp.jsonrpc import RpcError
from agent_lsp.adapters.acp.session_setup import mcp_servers_from_acp


def test_mcp_servers_from_the_client() -> None:
    servers = [
        {"name": "local", "command": "node", "args": ["srv.js"], "env": [{"name": "TOKEN", "value": "t"}]},
        {
            "type": "http",
            "name": "remote",
            "url": "https://h/mcp",
            "headers": [{"name": "Authorization", "value": "b"}],
        },
        {"type": "sse", "name": "events", "url": "https://h/sse", "headers": []},
    ]
    assert mcp_servers_from_acp(servers) == {
        "local": {"command": "node", "args": ["srv.js"], "env": {"TOKEN": "t"}},
        "remote": {"httpUrl": "https://h/mcp", "headers": {"Authorization": "b"}},
        "events": {"url": "https://h/sse", "type": "sse"},
    }
    with pytest.raises(RpcError) as info:
        mcp_servers_from_acp([{"type": "ws", "name": "x", "url": "ws://h"}])
    assert info.value.data == {"field": "mcpServers[0].type"}
    with pytest.raises(RpcError) as info:
        mcp_servers_from_acp([{"name": "x", "command": "c", "args": [], "env": [{"name": "A"}]}])
    assert info.value.data == {"field": "mcpServers[0].env[0]"}
