"""list_directory: ordering, ignore globs, ignore files with counts, errors and path escapes."""

from __future__ import annotations

import os
from pathlib import Path

from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.ls import ListDirectoryTool

from .conftest import run, run_error, write


async def test_folders_first_then_files_alphabetically(ctx: ToolContext, root: Path) -> None:
    for rel in ("b.txt", "A.md", "c.py", "zeta/x", "alpha/y"):
        write(root, rel)
    result = await run(ListDirectoryTool(ctx), {"dir_path": "."})
    assert result.llm_content == f"Directory listing for {root}:\n[DIR] alpha\n[DIR] zeta\nA.md\nb.txt\nc.py"


async def test_ignore_files_and_globs_are_counted(ctx: ToolContext, root: Path) -> None:
    (root / ".git").mkdir()
    write(root, ".gitignore", "*.log\nbuild/\n")
    write(root, ".geminiignore", "private.txt\n")
    for rel in ("a.log", "build/x", "private.txt", "keep.py", "tmp1", "notes.md"):
        write(root, rel)
    tool = ListDirectoryTool(ctx)
    text = str((await run(tool, {"dir_path": str(root), "ignore": ["tmp*"]})).llm_content)
    # .git, a.log, build, private.txt, tmp1 are hidden
    assert text.splitlines()[1:] == [".geminiignore", ".gitignore", "keep.py", "notes.md", "", "(5 ignored)"]
    opts = {"respect_git_ignore": False, "respect_gemini_ignore": False}
    text = str((await run(tool, {"dir_path": ".", "file_filtering_options": opts})).llm_content)
    assert "a.log" in text and "[DIR] build" in text and "private.txt" in text and "(1 ignored)" in text


async def test_empty_and_errors(ctx: ToolContext, root: Path, outside: Path) -> None:
    tool = ListDirectoryTool(ctx)
    (root / "empty").mkdir()
    write(root, "file.txt")
    assert (await run(tool, {"dir_path": "empty"})).llm_content == f"Directory {root / 'empty'} is empty."
    assert "Directory not found" in await run_error(tool, {"dir_path": "missing"})
    assert "is a file" in await run_error(tool, {"dir_path": "file.txt"})
    os.symlink(outside, root / "escape")
    for bad in ("..", str(outside), "escape", "../outside"):
        assert "outside the workspace" in await run_error(tool, {"dir_path": bad}), bad
    inv = tool.build({"dir_path": "empty"})
    assert inv.describe() == "List empty"


def test_all_file_tools_register_with_valid_schemas(ctx: ToolContext) -> None:
    import jsonschema

    from agent_lsp.tools.glob import GlobTool
    from agent_lsp.tools.grep import GrepTool
    from agent_lsp.tools.read_file import ReadFileTool
    from agent_lsp.tools.read_many_files import ReadManyFilesTool
    from agent_lsp.tools.registry import ToolRegistry
    from agent_lsp.tools.replace import ReplaceTool
    from agent_lsp.tools.write_file import WriteFileTool

    tools = [
        cls(ctx)
        for cls in (
            ListDirectoryTool,
            ReadFileTool,
            ReadManyFilesTool,
            WriteFileTool,
            ReplaceTool,
            GrepTool,
            GlobTool,
        )
    ]
    registry = ToolRegistry(tools)
    assert registry.names() == [
        "list_directory",
        "read_file",
        "read_many_files",
        "write_file",
        "replace",
        "grep_search",
        "glob",
    ]
    for decl in registry.declarations():
        jsonschema.Draft202012Validator.check_schema(decl.parameters)
        assert decl.description and len(decl.description) > 80
    assert [t.read_only for t in tools] == [True, True, True, False, False, True, True]
