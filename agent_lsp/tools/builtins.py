"""The built-in tool set, constructed with the slice of the runtime each tool needs."""

from __future__ import annotations

from agent_lsp.tools.base import Tool
from agent_lsp.tools.context import ToolContext


def builtin_tools(ctx: ToolContext) -> list[Tool]:
    # Imported here so that start-up only pays for the tools when a session is actually created.
    from agent_lsp.tools.background_tools import ListBackgroundProcessesTool, ReadBackgroundOutputTool
    from agent_lsp.tools.glob import GlobTool
    from agent_lsp.tools.grep import GrepTool
    from agent_lsp.tools.ls import ListDirectoryTool
    from agent_lsp.tools.memory_tool import MemoryTool
    from agent_lsp.tools.plan_mode import EnterPlanModeTool
    from agent_lsp.tools.read_file import ReadFileTool
    from agent_lsp.tools.read_many_files import ReadManyFilesTool
    from agent_lsp.tools.replace import ReplaceTool
    from agent_lsp.tools.shell import ShellTool
    from agent_lsp.tools.todos import WriteTodosTool
    from agent_lsp.tools.update_topic import UpdateTopicTool
    from agent_lsp.tools.web_fetch import WebFetchTool
    from agent_lsp.tools.web_search import WebSearchTool
    from agent_lsp.tools.write_file import WriteFileTool

    tools: list[Tool] = [
        UpdateTopicTool(),
        ListDirectoryTool(ctx),
        ReadFileTool(ctx),
        ReadManyFilesTool(ctx),
        GrepTool(ctx),
        GlobTool(ctx),
        ReplaceTool(ctx),
        WriteFileTool(ctx),
        ShellTool(ctx),
        ListBackgroundProcessesTool(ctx.processes),
        ReadBackgroundOutputTool(ctx.processes),
        WebFetchTool(ctx),
        WebSearchTool(ctx),
        MemoryTool(ctx),
        WriteTodosTool(ctx),
        EnterPlanModeTool(),
    ]
    if ctx.code_intel is not None:
        from agent_lsp.tools.code_nav import LspTool

        tools.insert(6, LspTool(ctx, ctx.code_intel))  # after the search tools, where the model reads its options
        if ctx.code_intel.can_rename():
            from agent_lsp.tools.rename_symbol import RenameSymbolTool

            tools.insert(9, RenameSymbolTool(ctx, ctx.code_intel))  # after replace and write_file
    return tools
