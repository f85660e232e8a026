"""``@server:uri`` mentions in prompts: an MCP server's resource read and put beside the prompt, as Gemini CLI
does (``Content from @<uri>:`` and the resource's text), marked untrusted like the servers' tool output."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from agent_lsp.errors import ToolError
from agent_lsp.mcp.catalog import read_resource
from agent_lsp.model.base import InlineData, Part
from agent_lsp.untrusted import wrap_untrusted

if TYPE_CHECKING:
    from agent_lsp.mcp.manager import McpManager

# Binary the model takes inline; other blobs are described, as Gemini CLI describes every blob.
_INLINE_PREFIXES = ("image/", "audio/", "video/", "application/pdf")


class McpResourceMentions:
    """A ResourceReader over the session's MCP manager (which exists once the session has started)."""

    def __init__(self, manager: Callable[[], McpManager | None], servers: Sequence[str]) -> None:
        self._manager = manager
        self._servers = frozenset(servers)

    async def __call__(self, mentions: list[str]) -> tuple[list[str], list[Part], list[str]]:
        manager = self._manager()
        # ``server:scheme:…`` with a configured server's name; anything else is left to be read as a path.
        named = [(m, split) for m in mentions if (split := _split(m)) is not None and split[0] in self._servers]
        if manager is None or not named:
            return [], [], []
        if manager.connecting():
            await manager.wait_ready()  # a prompt sent right after the session opened: each within its timeout
        taken: list[str] = []
        parts: list[Part] = []
        warnings: list[str] = []
        for mention, (server, uri) in named:
            taken.append(mention)
            try:
                result = await read_resource(manager, server, uri)
            except ToolError as exc:
                warnings.append(f"@{mention}: {exc}")
                continue
            parts.append(Part(text=f"\nContent from @{uri}:\n"))
            parts.extend(resource_parts(result))
        return taken, parts, warnings


def _split(mention: str) -> tuple[str, str] | None:
    server, sep, uri = mention.partition(":")
    return (server, uri) if sep and server and ":" in uri else None


def resource_parts(result: Any) -> list[Part]:
    """A ReadResourceResult's contents for the model: text (untrusted), inline binary, or a description."""
    out: list[Part] = []
    for item in getattr(result, "contents", None) or []:
        text = getattr(item, "text", None)
        if isinstance(text, str):
            out.append(Part(text=wrap_untrusted(text)))
            continue
        blob = str(getattr(item, "blob", "") or "")
        mime = str(getattr(item, "mime_type", None) or "application/octet-stream")
        try:
            raw = base64.b64decode(blob, validate=True)
        except (binascii.Error, ValueError):
            out.append(Part(text=f"[Binary resource content {mime}: invalid base64]"))
            continue
        if mime.startswith(_INLINE_PREFIXES):
            out.append(Part(inline_data=InlineData(mime_type=mime, data=raw)))
        else:
            out.append(Part(text=f"[Binary resource content {mime}, {len(raw)} bytes]"))
    return out
