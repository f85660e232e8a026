"""Diagnostics after an edit, from a real basedpyright: what the edit introduced is listed, what it fixed is said,
what was wrong before is not blamed on it, and a clean edit adds nothing. The check runs around the real replace
and write_file invocations exactly as the scheduler runs it (core/scheduler.py)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from agent_lsp.code_intel.pool import ServerPool
from agent_lsp.code_intel.session import PoolCodeIntel
from agent_lsp.config.settings import Settings
from agent_lsp.core.edit_checks import EditChecks
from agent_lsp.runtime.code_intel import build_edit_checks
from agent_lsp.tools.base import Tool
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.replace import ReplaceTool
from agent_lsp.tools.write_file import WriteFileTool
from agent_lsp.workspace.filesystem import LocalFileSystem
from agent_lsp.workspace.roots import Workspace
from tests.code_intel.project import BASEDPYRIGHT, make_project, spec

pytestmark = pytest.mark.asyncio(loop_scope="module")


@dataclass
class Warm:
    root: Path
    ctx: ToolContext
    checks: EditChecks


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def warm(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Warm]:
    root = make_project(tmp_path_factory.mktemp("proj"))
    pool = ServerPool(os.environ)
    fs = LocalFileSystem()
    intel = PoolCodeIntel(pool, [spec(BASEDPYRIGHT)], lambda: [root], fs.read_text)
    workspace = Workspace([root])
    ctx = ToolContext(workspace=workspace, fs=fs, temp_dir=tmp_path_factory.mktemp("tmp"), code_intel=intel)
    # The cold start is paid here (the settle budget is for a warm server): the first analysis of each file.
    await intel.diagnostics(
        [root / "geo" / n for n in ("use.py", "old.py", "shapes.py")], after_edit=False, budget_s=30
    )
    # A generous settle: what is reported is checked here, not how fast (test_failures checks the bound).
    yield Warm(root, ctx, EditChecks(intel, workspace.relative, settle_s=30))
    await pool.aclose()


async def edit(warm: Warm, tool: Tool, **params: Any) -> str:
    """One call as the scheduler runs a file-changing one: confirmation (the proposal), the snapshot before,
    the write, the diagnostics after."""
    assert tool.validate(params) is None
    invocation = tool.build(params)
    await invocation.confirmation()
    before = await warm.checks.before([loc.path for loc in invocation.locations()])
    result = await invocation.execute(lambda _chunk: None)
    result = await warm.checks.after(before, result)
    assert result.error is None, result.llm_content
    return str(result.llm_content)


def replace(warm: Warm, name: str, old: str, new: str) -> dict[str, Any]:
    return {"file_path": str(warm.root / "geo" / name), "instruction": "t", "old_string": old, "new_string": new}


async def test_an_edit_that_breaks_a_name_says_so_and_the_fix_says_it_is_fixed(warm: Warm) -> None:
    text = await edit(warm, ReplaceTool(warm.ctx), **replace(warm, "use.py", "area(1, 1)", "aera(1, 1)"))
    assert text.startswith("Successfully modified file:")
    assert "The language server reports problems this edit introduced:" in text
    assert 'geo/use.py:5:25: error: "aera" is not defined (reportUndefinedVariable)' in text
    text = await edit(warm, ReplaceTool(warm.ctx), **replace(warm, "use.py", "aera(1, 1)", "area(1, 1)"))
    assert "introduced" not in text
    assert "This edit resolved 1 error reported before it." in text


async def test_problems_that_were_there_before_are_not_blamed_on_the_edit(warm: Warm) -> None:
    # old.py has `LEGACY = undefined_thing`: a clean edit elsewhere in it adds nothing at all.
    text = await edit(warm, ReplaceTool(warm.ctx), **replace(warm, "old.py", "/ 2", "/ 4"))
    assert text == f"Successfully modified file: {warm.root / 'geo' / 'old.py'} (1 replacement)."
    # A new problem in the same file is listed; the old one is not, though its line moved.
    text = await edit(
        warm, ReplaceTool(warm.ctx), **replace(warm, "old.py", "from geo.shapes import area\n", "import nothing_here\n")
    )
    assert "nothing_here" in text and "area" in text  # the import no longer resolves, and area is now undefined
    assert "undefined_thing" not in text


async def test_write_file_is_checked_too(warm: Warm) -> None:
    path = warm.root / "geo" / "fresh.py"
    text = await edit(warm, WriteFileTool(warm.ctx), file_path=str(path), content="x: int = 'text'\n")
    assert text.startswith("Successfully created and wrote to new file")
    assert "geo/fresh.py:1:10: error:" in text
    assert "(Nothing was known about geo/fresh.py before the edit: older problems may be listed too.)" in text


async def test_files_no_server_serves_add_nothing(warm: Warm) -> None:
    path = warm.root / "notes.txt"
    text = await edit(warm, WriteFileTool(warm.ctx), file_path=str(path), content="anything\n")
    assert text == f"Successfully created and wrote to new file: {path}."


async def test_the_setting_turns_it_off() -> None:
    workspace = Workspace([Path.cwd()])
    intel = PoolCodeIntel(ServerPool({}), [spec(BASEDPYRIGHT)], lambda: workspace.roots, LocalFileSystem().read_text)
    assert build_edit_checks(intel, Settings.model_validate({}), workspace) is not None
    off = Settings.model_validate({"codeIntelligence": {"diagnosticsAfterEdit": False}})
    assert build_edit_checks(intel, off, workspace) is None
    slow = Settings.model_validate({"codeIntelligence": {"diagnosticsWaitMs": 4000}})
    checks = build_edit_checks(intel, slow, workspace)
    assert checks is not None and checks.settle_s == 4.0
    assert build_edit_checks(None, Settings.model_validate({}), workspace) is None
