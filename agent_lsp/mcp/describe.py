"""/mcp's text: each configured server's transport, state, tools, prompts and resources, in Markdown."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_lsp.mcp.manager import McpManager

_LISTED = 12  # names shown per kind before "and N more"


def describe_servers(manager: McpManager) -> str:
    servers = manager.servers()
    if not servers:
        return "No MCP servers are configured."
    lines = ["MCP servers:"]
    for srv in servers:
        where = srv.spec.transport or "?"
        lines.append(f"- **{srv.spec.name}** ({where}): {srv.state}")
        if srv.state == "connected":
            lines.append(f"  - tools: {_names(srv.tools)}")
            if srv.prompts:
                lines.append(f"  - prompts: {_names(['/' + str(p.name) for p in srv.prompts])}")
            if srv.resources or srv.templates:
                uris = [f"@{srv.spec.name}:{r.uri}" for r in srv.resources]
                extra = f" (and {len(srv.templates)} template(s))" if srv.templates else ""
                lines.append(f"  - resources: {_names(uris)}{extra}")
        if srv.log_path is not None:
            lines.append(f"  - log: {srv.log_path}")
    return "\n".join(lines)


def _names(names: list[str]) -> str:
    if not names:
        return "none"
    shown = ", ".join(f"`{n}`" for n in names[:_LISTED])
    return shown + (f" and {len(names) - _LISTED} more" if len(names) > _LISTED else "")
