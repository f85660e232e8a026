"""The tools package's view of the tool contract (defined in ``core/tool.py``) plus ContextTool, the base of
built-in tools that work on a runtime slice (``ToolContext``)."""

from __future__ import annotations

from agent_lsp.core.tool import (
    OutputSink,
    P,
    Tool,
    ToolInvocation,
    ToolResult,
    validate_against_schema,
)
from agent_lsp.tools.context import ToolContext

__all__ = [
    "ContextTool",
    "OutputSink",
    "P",
    "Tool",
    "ToolInvocation",
    "ToolResult",
    "validate_against_schema",
]


class ContextTool(Tool):
    """A built-in tool constructed with the runtime slice it works on."""

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
