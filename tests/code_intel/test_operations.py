"""The lsp tool's eight operations and rename_symbol against real language servers (basedpyright, and
typescript-language-server), through the runtime's pool: one warm pool for the module."""

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
from agent_lsp.errors import ToolError
from agent_lsp.tools.code_nav import LspTool
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.rename_symbol import RenameSymbolTool
from agent_lsp.workspace.filesystem import LocalFileSystem
from agent_lsp.workspace.roots import Workspace
from tests.code_intel.project import BASEDPYRIGHT, TYPESCRIPT, make_project, spec

pytestmark = pytest.mark.asyncio(loop_scope="module")


@dataclass
class Warm:
    root: Path
    intel: PoolCodeIntel
    ctx: ToolContext
    pool: ServerPool


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def warm(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Warm]:
    root = make_project(tmp_path_factory.mktemp("proj"))
    pool = ServerPool(os.environ)
    fs = LocalFileSystem()
    intel = PoolCodeIntel(pool, [spec(BASEDPYRIGHT), spec(TYPESCRIPT, "typescript")], lambda: [root], fs.read_text)
    ctx = ToolContext(workspace=Workspace([root]), fs=fs, temp_dir=tmp_path_factory.mktemp("tmp"), code_intel=intel)
    yield Warm(root, intel, ctx, pool)
    await pool.aclose()


async def ask(warm: Warm, **params: Any) -> str:
    tool = LspTool(warm.ctx, warm.intel)
    problem = tool.validate(params)
    assert problem is None, problem
    result = await tool.build(params).execute(lambda _chunk: None)
    assert result.error is None, result.llm_content
    assert isinstance(result.llm_content, str)
    return result.llm_content


def py(warm: Warm, name: str) -> str:
    return str(warm.root / "geo" / name)


async def test_go_to_definition_from_a_call_site_answers_the_def_line(warm: Warm) -> None:
    text = await ask(warm, operation="goToDefinition", file_path=py(warm, "use.py"), line=5, character=12)
    assert text == "1 definition of `area`:\ngeo/shapes.py:6:5: def area(width: float, height: float) -> float:"


async def test_a_column_a_few_characters_off_snaps_to_the_name_on_that_line(warm: Warm) -> None:
    # Column 10 is the space before "area": the nearest identifier is area, not "return".
    text = await ask(warm, operation="goToDefinition", file_path=py(warm, "use.py"), line=5, character=11)
    assert "geo/shapes.py:6:5: def area" in text
    # The name as query wins over the column: the second call on the line, asked by name from column 1.
    text = await ask(warm, operation="hover", file_path=py(warm, "use.py"), line=5, character=1, query="area")
    assert "def area(" in text


async def test_find_references_groups_every_use_by_file_with_its_source_line(warm: Warm) -> None:
    text = await ask(warm, operation="findReferences", file_path=py(warm, "shapes.py"), line=6, character=5)
    lines = text.splitlines()
    assert lines[0] == "7 references of `area` in 3 files:"
    assert "geo/use.py:5:12: return area(2, 3) + area(1, 1)" in lines
    assert "geo/use.py:5:25: return area(2, 3) + area(1, 1)" in lines
    assert "geo/shapes.py:25:16: return area(self.w, self.h)" in lines
    files = [ln.split(":")[0] for ln in lines[1:]]
    assert files == sorted(files, key=files.index)  # each file's lines together


async def test_hover_is_the_signature_and_the_first_paragraph_of_the_doc(warm: Warm) -> None:
    text = await ask(warm, operation="hover", file_path=py(warm, "use.py"), line=5, character=12)
    assert "def area(" in text and "-> float" in text
    assert "The area of a rectangle." in text
    assert "square units" not in text  # only the first paragraph
    assert "---" not in text and "```" not in text  # the markdown's rule and fences are not the model's to read


async def test_document_symbol_is_an_outline_indented_by_nesting(warm: Warm) -> None:
    text = await ask(warm, operation="documentSymbol", file_path=py(warm, "shapes.py"))
    lines = text.splitlines()
    assert lines[0] == "Symbols in geo/shapes.py:"
    assert "function area (line 6)" in lines
    assert "class Rect (line 19)" in lines
    assert "  method size (line 24)" in lines


async def test_workspace_symbol_finds_a_name_across_the_project(warm: Warm) -> None:
    text = await ask(warm, operation="workspaceSymbol", file_path=py(warm, "use.py"), query="Rect")
    assert "class Rect — geo/shapes.py:19:7: class Rect(Shape):" in text


async def test_go_to_implementation_of_an_abstract_method(warm: Warm) -> None:
    text = await ask(warm, operation="goToImplementation", file_path=py(warm, "shapes.py"), line=16, character=9)
    assert "geo/shapes.py:24:9: def size(self) -> float:" in text


async def test_incoming_calls_name_each_caller_with_its_call_sites(warm: Warm) -> None:
    text = await ask(warm, operation="incomingCalls", file_path=py(warm, "shapes.py"), line=6, character=5)
    assert text.startswith("Callers of `area`:")
    assert "function total (geo/use.py:4)" in text
    assert "  geo/use.py:5:12: return area(2, 3) + area(1, 1)" in text
    assert "  geo/use.py:5:25: return area(2, 3) + area(1, 1)" in text
    assert "size (geo/shapes.py:24)" in text


async def test_outgoing_calls_name_each_callee_and_where_it_is_called(warm: Warm) -> None:
    text = await ask(warm, operation="outgoingCalls", file_path=py(warm, "use.py"), line=4, character=5)
    assert text.startswith("Calls made by `total`:")
    assert "function area (geo/shapes.py:6)" in text
    assert "  geo/use.py:5:12: return area(2, 3) + area(1, 1)" in text


async def test_typescript_is_served_by_its_own_server(warm: Warm) -> None:
    use = str(warm.root / "web" / "use.ts")
    # Right after it starts, tsserver may answer references from the files it has open only (docs/performance.md,
    # known limits): the outline of the declaring file opens it first.
    assert "function area" in await ask(
        warm, operation="documentSymbol", file_path=str(warm.root / "web" / "shapes.ts")
    )
    text = await ask(warm, operation="findReferences", file_path=use, line=4, character=10)
    assert "web/use.ts:4:10: return area(2, 3) + area(1, 1);" in text
    assert "web/shapes.ts:1:17: export function area(w: number, h: number): number {" in text
    text = await ask(warm, operation="goToDefinition", file_path=use, line=4, character=10)
    assert "web/shapes.ts:1:17" in text


async def test_a_file_no_server_serves_is_said_in_one_line(warm: Warm) -> None:
    text = await ask(warm, operation="documentSymbol", file_path=str(warm.root / "README.md"))
    assert len(text.splitlines()) == 1
    assert text.startswith("No code intelligence serves .md files") and "grep_search" in text


async def test_bad_positions_are_errors_the_model_reads(warm: Warm) -> None:
    tool = LspTool(warm.ctx, warm.intel)
    assert tool.validate({"operation": "hover", "file_path": py(warm, "use.py")}) == (
        "hover needs line (1-based) and character of the symbol."
    )
    assert "workspaceSymbol needs query" in str(tool.validate({"operation": "workspaceSymbol", "file_path": "x.py"}))
    assert "outside the workspace" in str(tool.validate({"operation": "hover", "file_path": "/etc/passwd", "line": 1}))
    invocation = tool.build({"operation": "hover", "file_path": py(warm, "use.py"), "line": 99, "character": 1})
    with pytest.raises(ToolError, match="has 5 lines; line 99 does not exist"):
        await invocation.execute(lambda _chunk: None)
    invocation = tool.build({"operation": "hover", "file_path": py(warm, "use.py"), "line": 2, "character": 1})
    with pytest.raises(ToolError, match=r"Line 2 of geo/use\.py has no identifier"):
        await invocation.execute(lambda _chunk: None)


async def test_rename_is_one_change_over_every_file_shown_as_one_diff_per_file(warm: Warm) -> None:
    tool = RenameSymbolTool(warm.ctx, warm.intel)
    params = {"file_path": py(warm, "use.py"), "line": 5, "character": 12, "new_name": "surface"}
    assert tool.validate(params) is None
    invocation = tool.build(params)
    details = await invocation.confirmation()
    assert details is not None and details.type == "edit" and details.diff is not None
    assert details.title == "Rename area → surface in 3 file(s)"
    diffs = [details.diff, *details.extra_diffs]
    assert sorted(Path(d.path).name for d in diffs) == ["old.py", "shapes.py", "use.py"]
    assert all("-" in d.unified and "+" in d.unified and "surface" in d.new_text for d in diffs)
    result = await invocation.execute(lambda _chunk: None)
    assert result.error is None
    assert "Renamed area to surface: 3 file(s) changed" in str(result.llm_content)
    assert "return surface(2, 3) + surface(1, 1)" in (warm.root / "geo" / "use.py").read_text()
    assert "def surface(width: float" in (warm.root / "geo" / "shapes.py").read_text()
    # The servers see the renamed files: the name resolves under its new name, and the old one is gone.
    text = await ask(warm, operation="goToDefinition", file_path=py(warm, "use.py"), line=5, character=12)
    assert "geo/shapes.py:6:5: def surface(" in text
    assert tool.validate({**params, "new_name": "not a name"}) is not None
