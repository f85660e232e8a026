"""Tests for write_todos: validation, the plan it reports and what the model reads back."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_lsp.errors import ToolError
from agent_lsp.events import PlanEntry
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.todos import WriteTodosTool
from agent_lsp.workspace.filesystem import LocalFileSystem
from agent_lsp.workspace.roots import Workspace


def make_tool(tmp_path: Path) -> WriteTodosTool:
    return WriteTodosTool(ToolContext(Workspace([tmp_path]), LocalFileSystem(), tmp_path / "tmp"))


async def test_plan_is_the_full_list(tmp_path: Path) -> None:
    tool = make_tool(tmp_path)
    todos = [
        {"description": "Read the code", "status": "completed"},
        {"description": " Write the fix ", "status": "in_progress"},
        {"description": "Run tests", "status": "pending"},
        {"description": "Old idea", "status": "cancelled"},
    ]
    assert tool.validate({"todos": todos}) is None
    inv = tool.build({"todos": todos})
    assert inv.describe() == "Update the to-do list (1/4 done)"
    result = await inv.execute(lambda _c: None)
    assert result.error is None
    assert result.plan == (
        PlanEntry("Read the code", "completed"),
        PlanEntry("Write the fix", "in_progress"),
        PlanEntry("Run tests", "pending"),
        PlanEntry("Old idea", "cancelled"),
    )
    assert result.llm_content == (
        "The to-do list is updated. It now reads:\n"
        "1. [completed] Read the code\n2. [in_progress] Write the fix\n3. [pending] Run tests\n4. [cancelled] Old idea"
    )
    assert result.display is not None and "- [x] Read the code" in result.display


async def test_empty_list_clears_the_plan(tmp_path: Path) -> None:
    inv = make_tool(tmp_path).build({"todos": []})
    result = await inv.execute(lambda _c: None)
    assert result.plan == ()
    assert result.llm_content == "The to-do list is now empty."


def test_at_most_one_in_progress(tmp_path: Path) -> None:
    tool = make_tool(tmp_path)
    todos = [{"description": "a", "status": "in_progress"}, {"description": "b", "status": "in_progress"}]
    message = tool.validate({"todos": todos})
    assert message is not None and "Only one task can be in_progress" in message
    with pytest.raises(ToolError):
        tool.build({"todos": todos})


def test_bad_items_are_refused(tmp_path: Path) -> None:
    tool = make_tool(tmp_path)
    assert tool.validate({"todos": "not a list"}) == "params/todos must be array"
    assert "params/todos/0" in (tool.validate({"todos": ["just text"]}) or "")
    assert "description" in (tool.validate({"todos": [{"description": " ", "status": "pending"}]}) or "")
    assert "status must be one of" in (tool.validate({"todos": [{"description": "x", "status": "done"}]}) or "")
    assert "status must be one of" in (tool.validate({"todos": [{"description": "x"}]}) or "")


def test_is_a_think_tool(tmp_path: Path) -> None:
    tool = make_tool(tmp_path)
    assert tool.kind == "think" and tool.read_only
    assert tool.declaration().name == "write_todos"
