"""Tests for save_memory on real files (global) and through the workspace FileSystem (project)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.memory_tool import MEMORY_SECTION, MemoryTool, add_memory_entry, normalize_fact
from agent_lsp.workspace.filesystem import LocalFileSystem
from agent_lsp.workspace.roots import Workspace


class EditorFileSystem(LocalFileSystem):
    """An editor-like FileSystem: open buffers win over disk and writes land in the buffer."""

    def __init__(self) -> None:
        self.buffers: dict[Path, str] = {}
        self.labels: list[str] = []

    async def read_text(self, path: Path) -> str:
        if path in self.buffers:
            return self.buffers[path]
        return await super().read_text(path)

    async def write_text(self, path: Path, content: str, *, expected: str | None, label: str = "") -> None:
        current = self.buffers.get(path)
        assert current == expected
        self.buffers[path] = content
        self.labels.append(label)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "ws"
    root.mkdir()
    return ToolContext(
        Workspace([root]),
        LocalFileSystem(),
        tmp_path / "tmp",
        global_memory_file=tmp_path / "home" / ".gemini" / "GEMINI.md",
    )


async def save(ctx: ToolContext, **params: str) -> str:
    tool = MemoryTool(ctx)
    assert tool.validate(dict(params)) is None
    result = await tool.build(dict(params)).execute(lambda _c: None)
    assert result.error is None
    return str(result.llm_content)


def test_normalize_fact() -> None:
    assert normalize_fact("- - likes tea") == "likes tea"
    assert normalize_fact("  uses\n  two   spaces \n") == "uses two spaces"
    assert normalize_fact("-well-known-name is fine") == "well-known-name is fine"
    assert normalize_fact(" - \n ") == ""


def test_add_entry_creates_section_at_end() -> None:
    assert add_memory_entry("", "a") == f"{MEMORY_SECTION}\n- a\n"
    assert add_memory_entry("# Notes\n\nhello\n\n\n", "a") == f"# Notes\n\nhello\n\n{MEMORY_SECTION}\n- a\n"


def test_add_entry_goes_to_the_end_of_an_existing_section() -> None:
    text = f"# Top\n\n{MEMORY_SECTION}\n- one\n\n## Other\ntext\n"
    assert add_memory_entry(text, "two") == f"# Top\n\n{MEMORY_SECTION}\n- one\n- two\n\n## Other\ntext\n"
    text = f"{MEMORY_SECTION}\n- one\n### a sub-heading stays inside\n- x\n"
    assert add_memory_entry(text, "two").endswith("- x\n- two\n")


async def test_global_scope_creates_the_file(ctx: ToolContext) -> None:
    message = await save(ctx, fact="- My favourite colour is teal")
    assert "My favourite colour is teal" in message
    assert ctx.global_memory_file.read_text() == f"{MEMORY_SECTION}\n- My favourite colour is teal\n"
    await save(ctx, fact="I use fish\nshell")
    assert ctx.global_memory_file.read_text() == (
        f"{MEMORY_SECTION}\n- My favourite colour is teal\n- I use fish shell\n"
    )
    assert not (ctx.workspace.primary / "GEMINI.md").exists()


async def test_global_scope_keeps_existing_content(ctx: ToolContext) -> None:
    ctx.global_memory_file.parent.mkdir(parents=True)
    ctx.global_memory_file.write_text("# My rules\n\nBe brief.\n")
    await save(ctx, fact="Name is Ana", scope="global")
    assert ctx.global_memory_file.read_text() == f"# My rules\n\nBe brief.\n\n{MEMORY_SECTION}\n- Name is Ana\n"


async def test_project_scope_goes_through_the_workspace_filesystem(ctx: ToolContext) -> None:
    fs = EditorFileSystem()
    ctx.fs = fs
    ctx.memory_file_name = "AGENTS.md"
    target = ctx.workspace.primary / "AGENTS.md"
    target.write_text("on disk, stale\n")
    fs.buffers[target] = "# Project\n"  # unsaved editor text wins
    tool = MemoryTool(ctx)
    result = await tool.build({"fact": "deploy with make ship", "scope": "project"}).execute(lambda _c: None)
    assert fs.buffers[target] == f"# Project\n\n{MEMORY_SECTION}\n- deploy with make ship\n"
    assert target.read_text() == "on disk, stale\n"  # the editor decides when to save
    assert fs.labels == ["Save memory"]
    assert result.touched_paths == (str(target),)
    assert not ctx.global_memory_file.exists()


async def test_project_confirmation_is_an_edit_with_a_diff(ctx: ToolContext) -> None:
    inv = MemoryTool(ctx).build({"fact": "tests run with pytest", "scope": "project"})
    details = await inv.confirmation()
    path = ctx.workspace.primary / "GEMINI.md"
    assert details.type == "edit"
    assert details.path == str(path)
    assert details.diff is not None
    assert details.diff.old_text is None
    assert details.diff.new_text == f"{MEMORY_SECTION}\n- tests run with pytest\n"
    assert "+- tests run with pytest" in details.diff.unified
    assert not path.exists()  # asking changes nothing


async def test_modified_proposal_is_what_gets_written(ctx: ToolContext) -> None:
    inv = MemoryTool(ctx).build({"fact": "likes tea", "scope": "project"})
    assert inv.modifiable
    inv.apply_modification(f"{MEMORY_SECTION}\n- likes green tea\n")
    await inv.execute(lambda _c: None)
    assert (ctx.workspace.primary / "GEMINI.md").read_text() == f"{MEMORY_SECTION}\n- likes green tea\n"


def test_empty_fact_refused(ctx: ToolContext) -> None:
    tool = MemoryTool(ctx)
    assert tool.validate({"fact": " -- "}) == "The fact must not be empty."
    assert tool.validate({"fact": "x", "scope": "team"}) is not None
