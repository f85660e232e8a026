"""ACP's shapes of what a session offers the editor (modes, config options, slash commands), built from the
shared vocabulary, the model catalog and the command specs; and the client's MCP servers in our settings shape."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_lsp.adapters.acp.jsonrpc import RpcError
from agent_lsp.vocabulary import PermissionChoice

if TYPE_CHECKING:
    from agent_lsp.core.commands import CommandSpec


def permission_options(choices: list[PermissionChoice]) -> list[dict[str, Any]]:
    """ACP PermissionOption entries for the vocabulary's permission choices."""
    return [{"optionId": c.option_id, "name": c.name, "kind": c.kind} for c in choices]


def available_commands(specs: Sequence[CommandSpec] | None = None) -> list[dict[str, Any]]:
    """ACP AvailableCommand entries: the session's commands (custom ones included), else the built-in ones."""
    from agent_lsp.core.commands import COMMANDS

    out: list[dict[str, Any]] = []
    for c in COMMANDS if specs is None else specs:
        entry: dict[str, Any] = {"name": c.name, "description": c.description}
        if c.hint:
            entry["input"] = {"hint": c.hint}
        out.append(entry)
    return out


def mcp_servers_from_acp(servers: list[Any], *, field: str = "mcpServers") -> dict[str, dict[str, Any]]:
    """ACP McpServer entries (stdio / http / sse) → our ``mcpServers`` settings shape, keyed by name."""
    out: dict[str, dict[str, Any]] = {}
    for i, server in enumerate(servers):
        where = f"{field}[{i}]"
        if not isinstance(server, dict):
            raise RpcError.invalid_params(where, "must be an object")
        name = server.get("name")
        if not isinstance(name, str) or not name.strip():
            raise RpcError.invalid_params(f"{where}.name", "is required and must be a non-empty string")
        kind = server.get("type", "stdio")
        if kind in ("http", "sse"):
            url = server.get("url")
            if not isinstance(url, str) or not url:
                raise RpcError.invalid_params(f"{where}.url", "is required and must be a string")
            entry: dict[str, Any] = {"httpUrl": url} if kind == "http" else {"url": url, "type": "sse"}
            headers = _pairs(server.get("headers"), f"{where}.headers")
            if headers:
                entry["headers"] = headers
        elif kind == "stdio":
            command = server.get("command")
            if not isinstance(command, str) or not command:
                raise RpcError.invalid_params(f"{where}.command", "is required and must be a string")
            args = server.get("args") or []
            if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                raise RpcError.invalid_params(f"{where}.args", "must be an array of strings")
            entry = {"command": command, "args": list(args)}
            env = _pairs(server.get("env"), f"{where}.env")
            if env:
                entry["env"] = env
        else:
            raise RpcError.invalid_params(f"{where}.type", "must be stdio, http or sse")
        out[name] = entry
    return out


def _pairs(value: Any, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, list):
        raise RpcError.invalid_params(where, "must be an array of {name, value}")
    out: dict[str, str] = {}
    for i, item in enumerate(value):
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("name"), str)
            or not isinstance(item.get("value"), str)
        ):
            raise RpcError.invalid_params(f"{where}[{i}]", "must be {name: string, value: string}")
        out[item["name"]] = item["value"]
    return out
