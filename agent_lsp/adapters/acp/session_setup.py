"""A ``SessionSetup`` from ``session/new``/``load``/``resume`` params: folders, MCP servers, and everything the
editor contributes (confirmer, file system, terminal shell, notice sink), given at construction."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field
from typing_extensions import TypedDict  # pydantic reads typing's TypedDict only from 3.12

from agent_lsp.adapters.acp.channel import SessionChannel
from agent_lsp.adapters.acp.confirmer import AcpConfirmer
from agent_lsp.adapters.acp.elicitation import AcpElicitor
from agent_lsp.adapters.acp.handshake import ClientCapabilities
from agent_lsp.adapters.acp.jsonrpc import Connection, RpcError
from agent_lsp.adapters.acp.live import SessionTable
from agent_lsp.adapters.acp.params import Params, require_list, require_str
from agent_lsp.fields import conforms

if TYPE_CHECKING:
    from agent_lsp.core.code_intel import CodeIntel
    from agent_lsp.runtime import SessionSetup

# The types of an McpServer's fields (checked by agent_lsp.fields, never coerced).
_NonBlank = Annotated[str, Field(pattern=r"\S")]
_PAIRS = "must be an array of {name, value}"


class _Pair(TypedDict):
    name: str
    value: str


def session_setup(
    params: dict[str, Any],
    channel: SessionChannel,
    client: ClientCapabilities,
    sessions: SessionTable,
    *,
    mcp_required: bool,
) -> SessionSetup:
    from agent_lsp.runtime import SessionSetup

    conn, sid = channel.conn, channel.id
    cwd = absolute_dir(require_str(params, "cwd"), "cwd")
    extra = [
        absolute_dir(d, f"additionalDirectories[{i}]")
        for i, d in enumerate(require_list(params, "additionalDirectories", default_empty=True))
    ]
    servers = require_list(params, "mcpServers", default_empty=not mcp_required)
    setup = SessionSetup(
        cwd=cwd,
        confirmer=AcpConfirmer(conn, sid, subagents=client.subagents),
        extra_roots=extra,
        client_mcp_servers=mcp_servers_from_acp(servers),
        session_id=sid,
        notice_sink=channel.notice,
        replace_tools=_editor_tools(conn, channel, client),
        commands_changed=lambda: _announce_commands(channel, sessions, sid),
        elicitor=AcpElicitor(conn, sid, form=client.elicitation_form),
        code_intel=_lsp_proxy(conn, sid) if client.lsp else None,
        client_instructions=system_prompt_text(params.get("systemPrompt")),
    )
    if client.read_text_file or client.write_text_file:
        from agent_lsp.adapters.acp.client_fs import ClientFileSystem

        roots = [cwd.resolve(), *(e.resolve() for e in extra)]

        def current_roots() -> tuple[Path, ...] | list[Path]:
            # The workspace's roots once the session is open (/directory add changes them); until then, these.
            live = sessions.get(sid)
            handle = live.opening.ready if live is not None else None
            return handle.workspace.roots if handle is not None else roots

        setup.fs = ClientFileSystem(conn, sid, current_roots, read=client.read_text_file, write=client.write_text_file)
    sessions.remember(cwd)
    return setup


def _lsp_proxy(conn: Connection, sid: str) -> CodeIntel:
    """The client's language servers through the draft ``lsp/servers``/``lsp/request`` (it advertised ``lsp``)."""
    from agent_lsp.adapters.acp.code_intel import AcpLspProxy

    return AcpLspProxy(conn, sid)


def system_prompt_text(value: Any) -> str:
    """The client's ``systemPrompt`` (unstable ``SystemPrompt``) as text to append to ours; "" when absent. Only
    ``append`` mode and text blocks: anything else is refused (-32602), as the schema asks, never half applied."""
    if value is None:
        return ""
    if not isinstance(value, dict):
        raise RpcError.invalid_params("systemPrompt", "must be an object {mode, content}")
    mode = value.get("mode")
    if mode != "append":
        raise RpcError.invalid_params(
            "systemPrompt.mode", f"must be append, the only mode this agent supports (got {mode!r})"
        )
    content = value.get("content")
    if not isinstance(content, list) or not content:
        raise RpcError.invalid_params("systemPrompt.content", "must be a non-empty array of text content blocks")
    texts: list[str] = []
    for i, block in enumerate(content):
        if not isinstance(block, dict) or block.get("type") != "text" or not isinstance(block.get("text"), str):
            raise RpcError.invalid_params(f"systemPrompt.content[{i}]", "must be a text content block")
        texts.append(block["text"])
    return "\n\n".join(texts)


def _announce_commands(channel: SessionChannel, sessions: SessionTable, sid: str) -> None:
    """The session's commands changed on their own (an MCP server's prompts arrived): the menu again."""
    from agent_lsp.adapters.choices import available_commands

    live = sessions.get(sid)
    handle = live.opening.ready if live is not None else None
    if handle is not None and not channel.closed:
        commands = available_commands(handle.command_specs())
        channel.send_update({"sessionUpdate": "available_commands_update", "availableCommands": commands})


def _editor_tools(conn: Connection, channel: SessionChannel, client: ClientCapabilities) -> dict[str, Any]:
    """Built-in tools the editor runs instead: the shell in its terminal, when it offers ``terminal``."""
    if not client.terminal:
        return {}
    from agent_lsp.adapters.acp.terminal_tool import TerminalShellTool
    from agent_lsp.tools.shell import SHELL_TOOL_NAME

    return {SHELL_TOOL_NAME: lambda ctx: TerminalShellTool(ctx, conn, channel.id, channel.attach_terminal)}


def absolute_dir(raw: Any, where: str) -> Path:
    """An existing absolute folder named by the client; -32602 naming ``where`` otherwise."""
    if not isinstance(raw, str) or not raw:
        raise RpcError.invalid_params(where, "is required and must be an absolute path")
    path = Path(raw)
    if not path.is_absolute():
        raise RpcError.invalid_params(where, f"must be an absolute path (got {raw!r})")
    if not path.is_dir():
        raise RpcError.invalid_params(where, f"is not an existing folder: {raw}")
    return path


def mcp_servers_from_acp(servers: list[Any], *, field: str = "mcpServers") -> dict[str, dict[str, Any]]:
    """ACP McpServer entries (stdio / http / sse) → our ``mcpServers`` settings shape, keyed by name."""
    out: dict[str, dict[str, Any]] = {}
    for i, server in enumerate(servers):
        where = f"{field}[{i}]"
        if not isinstance(server, dict):
            raise RpcError.invalid_params(where, "must be an object")
        reader = Params(server, where)
        name: str = reader.require("name", _NonBlank, "is required and must be a non-empty string")
        kind = reader.take("type", Literal["stdio", "http", "sse"], "must be stdio, http or sse") or "stdio"
        entry: dict[str, Any]
        if kind in ("http", "sse"):
            url = reader.require("url", str, "is required and must be a string")
            entry = {"httpUrl": url} if kind == "http" else {"url": url, "type": "sse"}
            if headers := _pairs(reader.take("headers", list, _PAIRS), f"{where}.headers"):
                entry["headers"] = headers
        else:
            command = reader.require("command", str, "is required and must be a string")
            entry = {"command": command, "args": reader.take("args", list[str], "must be an array of strings") or []}
            if env := _pairs(reader.take("env", list, _PAIRS), f"{where}.env"):
                entry["env"] = env
        out[name] = entry
    return out


def _pairs(value: list[Any] | None, where: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for i, item in enumerate(value or ()):
        if not conforms(item, _Pair):
            raise RpcError.invalid_params(f"{where}[{i}]", "must be {name: string, value: string}")
        out[item["name"]] = item["value"]
    return out
