"""Fixtures for the file-tool tests: a real workspace folder, a real ToolContext, and a helper to run a tool."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from agent_lsp.errors import ToolError
from agent_lsp.tools.base import Tool, ToolResult
from agent_lsp.tools.context import ToolContext
from agent_lsp.workspace.filesystem import LocalFileSystem
from agent_lsp.workspace.roots import Workspace


class BufferedFileSystem(LocalFileSystem):
    """The disk plus unsaved editor buffers, the way an editor-backed FileSystem behaves."""

    def __init__(self) -> None:
        self.buffers: dict[Path, str] = {}

    async def read_text(self, path: Path) -> str:
        if path in self.buffers:
            return self.buffers[path]
        return await super().read_text(path)

    def open_buffers(self) -> dict[Path, str]:
        return dict(self.buffers)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "ws"
    r.mkdir()
    return r.resolve()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    o = tmp_path / "outside"
    o.mkdir()
    (o / "secret.txt").write_text("top secret\n")
    return o.resolve()


@pytest.fixture
def fs() -> BufferedFileSystem:
    return BufferedFileSystem()


@pytest.fixture
def ctx(root: Path, tmp_path: Path, fs: BufferedFileSystem) -> ToolContext:
    return ToolContext(workspace=Workspace([root]), fs=fs, temp_dir=tmp_path / "tmp")


def write(root: Path, rel: str, text: str = "", mtime: float | None = None) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


async def run(tool: Tool, params: dict[str, Any]) -> ToolResult:
    """Validate, build and execute like the scheduler; a validation failure fails the test."""
    problem = tool.validate(params)
    assert problem is None, problem
    return await tool.build(params).execute(lambda _chunk: None)


async def run_error(tool: Tool, params: dict[str, Any]) -> str:
    """The message the model would get for a call that fails in validation or execution."""
    problem = tool.validate(params)
    if problem is not None:
        return problem
    try:
        result = await tool.build(params).execute(lambda _chunk: None)
    except ToolError as exc:
        return str(exc)
    assert result.error is not None, f"expected an error, got {result.llm_content!r}"
    return result.error


def text_of(result: ToolResult) -> str:
    content = result.llm_content
    if isinstance(content, str):
        return content
    return "".join(p.text or "" for p in content)
