"""Turning the tools an MCP server lists into registry entries: allow-lists, usable schemas, unique names."""

from __future__ import annotations

from typing import Any

from agent_lsp.mcp.config import McpServerSpec
from agent_lsp.mcp.schema import repair_schema
from agent_lsp.mcp.tool import McpCaller, McpTool, mcp_tool_name
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
        name = mcp_tool_name(spec.name, original)
        # Two servers can make the same name (``a_b`` + ``c`` and ``a`` + ``b_c``, or a cut long name): Gemini
        # CLI lets the later one overwrite; here it is left out and said, so no tool is silently shadowed.
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
