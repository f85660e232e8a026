"""McpTool: one tool of an MCP server, offered to the model under a Gemini-safe name."""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Callable
from typing import Any, Protocol

from agent_lsp.errors import ToolError
from agent_lsp.events import ConfirmationDetails, ToolKind
from agent_lsp.model.base import InlineData, Part
from agent_lsp.tools.base import OutputSink, Tool, ToolInvocation, ToolResult
from agent_lsp.untrusted import wrap_untrusted

MAX_NAME_LEN = 64
_NOT_IN_MCP_NAME = re.compile(r"[^a-zA-Z0-9_\-.:]")
MCP_PREFIX = "mcp_"
# Binary the model can take inline; anything else is described instead of sent.
_INLINE_PREFIXES = ("image/", "audio/", "video/", "application/pdf")


ProgressSink = Callable[[float, float | None, str | None], None]
"""Receives a call's progress notifications: progress, total (if known), message."""


class McpCaller(Protocol):
    """What an McpTool needs of the manager: a call on the server's live session."""

    async def call_tool(
        self, server: str, tool: str, args: dict[str, Any], timeout_s: float, on_progress: ProgressSink | None = None
    ) -> Any:
        """The server's CallToolResult. Raises ToolError when the server is gone, times out or refuses. With
        ``on_progress``, the call carries a progress token and the server's progress reports go there."""
        ...


def progress_line(progress: float, total: float | None, message: str | None) -> str:
    """One progress report as a line of the call's live output: ``[3/5] step three`` or ``[60%]``."""
    if total is not None and math.isfinite(total) and total > 0:
        where = f"[{progress:g}/{total:g}]"
    else:
        where = f"[{progress:g}]"
    return f"{where} {message}" if message else where


def mcp_tool_name(server: str, tool: str) -> str:
    """The name the model and policy rules know a server's tool by, made as Gemini CLI 0.61 makes it:
    ``mcp_<server>_<tool>``, characters outside [a-zA-Z0-9_.:-] replaced by ``_``, and a name over 63
    characters cut to its first 30 and last 30 joined by ``...``."""
    name = f"{server}_{tool}"
    if not name.startswith(MCP_PREFIX):
        name = MCP_PREFIX + name
    name = _NOT_IN_MCP_NAME.sub("_", name)
    if len(name) > MAX_NAME_LEN - 1:
        name = f"{name[:30]}...{name[-30:]}"
    return name


class McpTool(Tool):
    kind: ToolKind = "other"
    truncate_output = True

    def __init__(
        self,
        *,
        server: str,
        tool_name: str,
        description: str,
        parameters: dict[str, Any],
        caller: McpCaller,
        trusted: bool = False,
        timeout_s: float = 600.0,
        name: str | None = None,
    ) -> None:
        self.server_tool_name = tool_name  # the name the server knows it by, used on the wire
        self.name = name or mcp_tool_name(server, tool_name)
        self.display_name = f"{tool_name} ({server} MCP Server)"
        self.description = description or f"Tool '{tool_name}' from MCP server '{server}'."
        self.parameters = parameters
        self.server = server
        self.server_name = server  # the same, typed str: the base class allows None for built-ins
        self.trusted_server = trusted
        self.timeout_s = timeout_s
        self.caller = caller

    def build(self, params: dict[str, Any]) -> McpToolInvocation:
        return McpToolInvocation(self, dict(params))


class McpToolInvocation(ToolInvocation[dict[str, Any]]):
    def __init__(self, tool: McpTool, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.tool = tool

    def describe(self) -> str:
        args = json.dumps(self.params, ensure_ascii=False, default=str)
        if len(args) > 100:
            args = args[:97] + "..."
        return f"{self.tool.server_tool_name} ({self.tool.server} MCP Server) {args}"

    async def confirmation(self) -> ConfirmationDetails | None:
        # Always describe the call: whether a trusted server may skip asking is the policy's decision.
        return ConfirmationDetails(
            type="mcp",
            title=self.describe(),
            server=self.tool.server,
            tool=self.tool.server_tool_name,
            args=dict(self.params),
        )

    async def execute(self, output: OutputSink) -> ToolResult:
        tool = self.tool
        try:
            result = await tool.caller.call_tool(
                tool.server_name,
                tool.server_tool_name,
                self.params,
                tool.timeout_s,
                # As Gemini CLI does, every call asks for progress; reports become the call's live output.
                on_progress=lambda progress, total, message: output(progress_line(progress, total, message) + "\n"),
            )
        except ToolError as exc:
            # A dead server, a timeout or a refusal: the model reads why, the session goes on.
            return ToolResult(llm_content=str(exc), display=str(exc), error=str(exc), error_type=exc.error_type)
        return convert_result(result, tool.server_name, tool.server_tool_name)


def convert_result(result: Any, server: str, tool: str) -> ToolResult:
    """An MCP CallToolResult as a ToolResult: text stays text, images/audio become inline data parts."""
    parts: list[Part] = []
    shown: list[str] = []
    for block in getattr(result, "content", None) or []:
        _convert_block(block, parts, shown)
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        text = json.dumps(structured, ensure_ascii=False, default=str)
        parts.append(Part(text=wrap_untrusted(text)))
        shown.append(text)
    display = "\n".join(shown)
    if getattr(result, "is_error", False):
        reason = display or "the tool reported an error without details"
        return ToolResult(
            llm_content=f"MCP tool '{tool}' on server '{server}' failed: {wrap_untrusted(reason)}",
            display=reason,
            error=reason,
            error_type="mcp_tool_error",
        )
    if all(p.inline_data is None for p in parts):
        return ToolResult(llm_content="\n".join(p.text or "" for p in parts), display=display)
    return ToolResult(llm_content=parts, display=display)


def _convert_block(block: Any, parts: list[Part], shown: list[str]) -> None:
    kind = getattr(block, "type", None)
    if kind == "text":
        text = str(getattr(block, "text", ""))
        parts.append(Part(text=wrap_untrusted(text)))
        shown.append(text)
    elif kind in ("image", "audio"):
        mime = str(getattr(block, "mime_type", "") or "application/octet-stream")
        _add_binary(getattr(block, "data", ""), mime, f"{kind}", parts, shown)
    elif kind == "resource":
        resource = getattr(block, "resource", None)
        uri = str(getattr(resource, "uri", ""))
        body = getattr(resource, "text", None)
        if isinstance(body, str):
            parts.append(Part(text=wrap_untrusted(body)))
            shown.append(body)
            return
        mime = str(getattr(resource, "mime_type", None) or "application/octet-stream")
        blob = getattr(resource, "blob", "")
        if mime.startswith(_INLINE_PREFIXES):
            _add_binary(blob, mime, f"resource {uri}", parts, shown)
        else:
            note = f"[embedded resource {uri} ({mime}, {_b64_len(blob)} bytes of binary data, not shown)]"
            parts.append(Part(text=note))
            shown.append(note)
    elif kind == "resource_link":
        name = getattr(block, "name", "") or ""
        desc = getattr(block, "description", None)
        note = f"Resource link: {name} <{getattr(block, 'uri', '')}>" + (f" — {desc}" if desc else "")
        parts.append(Part(text=note))
        shown.append(note)
    else:
        note = f"[MCP content of type {kind!r} is not supported and was left out]"
        parts.append(Part(text=note))
        shown.append(note)


def _add_binary(data: Any, mime: str, what: str, parts: list[Part], shown: list[str]) -> None:
    try:
        raw = base64.b64decode(str(data), validate=True)
    except (binascii.Error, ValueError):
        note = f"[{what} ({mime}) could not be decoded: invalid base64]"
        parts.append(Part(text=note))
        shown.append(note)
        return
    parts.append(Part(inline_data=InlineData(mime_type=mime, data=raw)))
    shown.append(f"[{what}: {mime}, {len(raw)} bytes]")


def _b64_len(data: Any) -> int:
    text = str(data or "")
    return len(text) * 3 // 4 - text.count("=")
