"""Turning the tools an MCP server lists into registry entries: allow-lists, usable schemas, unique names."""

from __future__ import annotations

from typing import Any

from agent_lsp.mcp.config import McpServerSpec
from agent_lsp.mcp.schema import repair_schema
from agent_lsp.mcp.tool import McpCaller, McpTool, sanitize_function_name
from agent_lsp.tools.registry import ToolRegistry


def register_server_tools(
    registry: ToolRegistry, spec: McpServerSpec, listed: list[Any], caller: McpCaller, into: list[str]
) -> list[str]:
    """Register each allowed tool of ``listed``, appending its registry name to ``into`` as it goes (so a
    failure part way still leaves ``into`` naming what must be unregistered); returns why others were skipped."""
    skipped: list[str] = []
    for item in listed:
        original = str(item.name)
        if not spec.allows(original):
            continue
        params = repair_schema(item.input_schema)
        if params is None:
            skipped.append(f"{original} (its input schema cannot be used)")
            continue
        name = sanitize_function_name(original)
        # A name another tool already has gets the server's prefix; if that is taken too, the tool is left out
        # rather than shadowing one.
        if registry.get(name) is not None:
            name = sanitize_function_name(f"{spec.name}__{original}")
        if registry.get(name) is not None:
            skipped.append(f"{original} (the name {name} is taken)")
            continue
        tool = McpTool(
            server=spec.name,
            tool_name=original,
            description=str(item.description or ""),
            parameters=params,
            caller=caller,
            trusted=spec.trust,
            timeout_s=spec.timeout_s,
            name=name,
        )
        into.append(registry.register(tool))
    return skipped
