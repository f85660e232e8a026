"""What a session's MCP servers are and offer: per server its transport, state (and why it failed), log, tools,
prompts and resources, as plain JSON (the VS Code panel's MCP view) and as /mcp's Markdown, from one summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_lsp.mcp.connection import ServerConnection
    from agent_lsp.mcp.manager import McpManager

_LISTED = 12  # names shown per kind before "and N more"


def server_summary(srv: ServerConnection, tools: list[str]) -> dict[str, Any]:
    """One server as JSON: ``state`` is connecting, connected, failed or disconnected; ``reason`` says why it
    failed; what it offers (``tools``: the registry names it gave this session) is listed only while connected."""
    state, _sep, reason = srv.state.partition(": ")
    out: dict[str, Any] = {"name": srv.spec.name, "transport": srv.spec.transport or "?", "state": state}
    if reason:
        out["reason"] = reason
    if srv.log_path is not None:
        out["log"] = str(srv.log_path)
    connected = state == "connected"
    out["tools"] = list(tools) if connected else []
    out["prompts"] = [_named(p.name, p.description) for p in srv.prompts] if connected else []
    out["resources"] = [
        {**_named(str(r.title or r.name or r.uri), r.description), "mention": f"{srv.spec.name}:{r.uri}"}
        for r in (srv.resources if connected else [])
    ]
    out["templates"] = [
        {**_named(str(t.title or t.name), t.description), "mention": f"{srv.spec.name}:{t.uri_template}"}
        for t in (srv.templates if connected else [])
    ]
    return out


def _named(name: Any, description: Any) -> dict[str, str]:
    return {"name": str(name), "description": str(description)} if description else {"name": str(name)}


def describe_servers(manager: McpManager) -> str:
    servers = [server_summary(srv, manager.tool_names(srv.spec.name)) for srv in manager.servers()]
    if not servers:
        return "No MCP servers are configured."
    lines = ["MCP servers:"]
    for s in servers:
        state = f"{s['state']}: {s['reason']}" if "reason" in s else s["state"]
        lines.append(f"- **{s['name']}** ({s['transport']}): {state}")
        if s["state"] == "connected":
            lines.append(f"  - tools: {_names(s['tools'])}")
            if s["prompts"]:
                lines.append(f"  - prompts: {_names(['/' + p['name'] for p in s['prompts']])}")
            if s["resources"] or s["templates"]:
                extra = f" (and {len(s['templates'])} template(s))" if s["templates"] else ""
                lines.append(f"  - resources: {_names(['@' + r['mention'] for r in s['resources']])}{extra}")
        if "log" in s:
            lines.append(f"  - log: {s['log']}")
    return "\n".join(lines)


def _names(names: list[str]) -> str:
    if not names:
        return "none"
    shown = ", ".join(f"`{n}`" for n in names[:_LISTED])
    return shown + (f" and {len(names) - _LISTED} more" if len(names) > _LISTED else "")
