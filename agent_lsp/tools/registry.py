"""The tool registry: built-ins, discovered tools and MCP tools, looked up by the name the model uses."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from agent_lsp.core.tool import Tool
from agent_lsp.model.base import FunctionDeclaration

_INVALID = re.compile(r"[^A-Za-z0-9_.\-]")
MAX_NAME = 64  # Gemini's limit for function names


def valid_function_name(name: str) -> str:
    """Gemini's function-name rules: letters, digits, ``_ . -``, at most 64 characters (long names keep
    their start plus a short hash, so two long names stay distinct)."""
    clean = _INVALID.sub("_", name) or "tool"
    if len(clean) > MAX_NAME:
        digest = hashlib.sha256(name.encode()).hexdigest()[:8]
        clean = f"{clean[: MAX_NAME - 9]}_{digest}"
    return clean


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for t in tools:
            self.register(t)

    def register(self, tool: Tool) -> str:
        """Add a tool; a clash with an existing name is resolved by prefixing the server
        (``server__tool``). Returns the name the model will use."""
        name = tool.name
        if name in self._tools and tool.server:
            name = valid_function_name(f"{tool.server}__{tool.name}")
            tool.name = name
        if name in self._tools:
            raise ValueError(f"a tool named {name!r} is already registered")
        self._tools[name] = tool
        return name

    def replace(self, tool: Tool) -> None:
        """Put ``tool`` in place of the tool with its name (an adapter's editor-backed variant of a built-in)."""
        self._tools[tool.name] = tool

    def unregister_server(self, server: str) -> list[str]:
        gone = [n for n, t in self._tools.items() if t.server == server]
        for n in gone:
            del self._tools[n]
        return gone

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def tools(self) -> list[Tool]:
        return list(self._tools.values())

    def declarations(self, allowed: Iterable[str] | None = None) -> list[FunctionDeclaration]:
        keep = set(allowed) if allowed is not None else None
        return [t.declaration() for n, t in self._tools.items() if keep is None or n in keep]
