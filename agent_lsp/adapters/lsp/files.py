"""``agent/findFiles``: the workspace's files and folders for an editor's ``@`` picker, and with a ``sessionId``
its MCP servers' resources (see docs/protocol.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from agent_lsp.adapters.lsp.configuration import Configuration
from agent_lsp.adapters.lsp.mcp_servers import McpServers
from agent_lsp.adapters.lsp.params import opt_int, opt_str
from agent_lsp.workspace.file_search import FileSearch

MAX_LIMIT = 200


class FileFinder:
    def __init__(self, config: Configuration, mcp: McpServers) -> None:
        self.config = config
        self.mcp = mcp
        self.search = FileSearch()

    async def find(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """``{query?, limit?, sessionId?}`` → ``{items: [{path, uri, isDirectory, root?}], truncated, resources?:
        [{mention, server, name, description?, template?, prefix?}]}``, best match first."""
        query = opt_str(params, "query") or ""
        limit = min(opt_int(params, "limit", 50), MAX_LIMIT)
        roots = list(self.config.roots)
        found, truncated = await asyncio.to_thread(self.search.search, roots, query, limit)
        items = []
        for entry in found:
            item: dict[str, Any] = {"path": entry.relative, "uri": entry.path.as_uri(), "isDirectory": entry.is_dir}
            if len(roots) > 1:
                item["root"] = str(entry.root)
            items.append(item)
        answer: dict[str, Any] = {"items": items, "truncated": truncated}
        if params.get("sessionId"):
            answer["resources"] = await self.mcp.resources(params, query, limit)
        return answer
