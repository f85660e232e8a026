"""replace: exact and whitespace-flexible matching, counts, creation, CRLF, stale writes, escapes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_lsp.errors import StaleFileError
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.replace import ReplaceTool, plan_replacement

from .conftest import run, run_error, write

SRC = """class A:
    def f(self):
        if True:
            return 1
        return 2
"""


async def test_exact_replacement(ctx: ToolContext, root: Path) -> None:
    path = write(root, "a.py", SRC)
    result = await run(
        ReplaceTool(ctx),
        {"file_path": "a.py", "old_string": "            return 1\n", "new_string": "            return 10\n"},
    )
    assert path.read_text() == SRC.replace("return 1\n", "return 10\n")
    assert result.llm_content == f"Successfully modified file: {path} (1 replacement)."
    assert result.diff is not None and "-            return 1\n+            return 10\n" in result.diff.unified
    assert result.touched_paths == (str(path),)


async def test_whitespace_flexible_match_reindents(ctx: ToolContext, root: Path) -> None:
    path = write(root, "a.py", SRC)
    old = "if True:\n    return 1\n"  # the model lost the indentation
    new = "if False:\n    return 3\nelse:\n    return 4\n"
    result = await run(ReplaceTool(ctx), {"file_path": "a.py", "old_string": old, "new_string": new})
    assert path.read_text() == (
        "class A:\n"
        "    def f(self):\n"
        "        if False:\n"
        "            return 3\n"
        "        else:\n"
        "            return 4\n"
        "        return 2\n"
    )
    assert "ignoring indentation" in str(result.llm_content)


def test_flexible_match_with_trailing_spaces_and_dedent() -> None:
    text = "def g():\n\tif x:   \n\t\tpass\n\tdone()\n"
    plan = plan_replacement(text, "  if x:\n    pass", "  if y:\n    pass\n      deeper()\n  stop()\nend()")
    assert plan.flexible and plan.count == 1
    assert plan.text == "def g():\n\tif y:\n\t\tpass\n\t\t\tdeeper()\n\tstop()\nend()\n\tdone()\n"


async def test_crlf_is_preserved(ctx: ToolContext, root: Path) -> None:
    path = write(root, "w.txt", "alpha\r\nbeta\r\ngamma\r\n")
    await run(ReplaceTool(ctx), {"file_path": "w.txt", "old_string": "beta\ngamma", "new_string": "B\nC\nD"})
    assert path.read_bytes() == b"alpha\r\nB\r\nC\r\nD\r\n"
    await run(ReplaceTool(ctx), {"file_path": "w.txt", "old_string": "  alpha", "new_string": "  A"})
    assert path.read_bytes() == b"A\r\nB\r\nC\r\nD\r\n"


async def test_counts(ctx: ToolContext, root: Path) -> None:
    path = write(root, "c.txt", "x = 1\nx = 1\nx = 1\n")
    tool = ReplaceTool(ctx)
    msg = await run_error(tool, {"file_path": "c.txt", "old_string": "x = 1", "new_string": "x = 2"})
    assert "found 3 times" in msg and "allow_multiple" in msg
    params = {"file_path": "c.txt", "old_string": "x = 1", "new_string": "x = 2", "expected_replacements": 2}
    assert "expected 2 occurrence(s) of old_string but found 3" in await run_error(tool, params)
    result = await run(tool, {**params, "expected_replacements": None, "allow_multiple": True})
    assert path.read_text() == "x = 2\nx = 2\nx = 2\n"
    assert "(3 replacements)" in str(result.llm_content)


async def test_not_found_and_identical(ctx: ToolContext, root: Path) -> None:
    write(root, "a.py", SRC)
    tool = ReplaceTool(ctx)
    msg = await run_error(tool, {"file_path": "a.py", "old_string": "return 99", "new_string": "x"})
    assert "0 occurrences" in msg and "read_file" in msg
    assert "identical" in await run_error(tool, {"file_path": "a.py", "old_string": "a", "new_string": "a"})
    msg = await run_error(tool, {"file_path": "missing.py", "old_string": "a", "new_string": "b"})
    assert "File not found" in msg and "empty old_string" in msg


async def test_create_with_empty_old_string(ctx: ToolContext, root: Path) -> None:
    tool = ReplaceTool(ctx)
    result = await run(tool, {"file_path": "pkg/new.py", "old_string": "", "new_string": "x = 1\n"})
    assert (root / "pkg/new.py").read_text() == "x = 1\n"
    assert "Created new file" in str(result.llm_content)
    assert result.diff is not None and result.diff.old_text is None
    msg = await run_error(tool, {"file_path": "pkg/new.py", "old_string": "", "new_string": "y"})
    assert "already exists" in msg


async def test_placeholder_in_new_string_is_refused(ctx: ToolContext, root: Path) -> None:
    write(root, "a.py", SRC)
    params = {"file_path": "a.py", "old_string": "return 2", "new_string": "return 2\n    # ... rest of code here"}
    assert "omission placeholder" in await run_error(ReplaceTool(ctx), params)


async def test_confirm_modify_and_stale(ctx: ToolContext, root: Path) -> None:
    path = write(root, "a.txt", "hello world\n")
    tool = ReplaceTool(ctx)
    params = {"file_path": "a.txt", "old_string": "world", "new_string": "there", "instruction": "greet"}
    inv = tool.build(params)
    assert inv.describe() == "Edit a.txt: greet"
    details = await inv.confirmation()
    assert details is not None and details.diff is not None and details.diff.new_text == "hello there\n"
    assert details.title == "Edit a.txt"
    inv.apply_modification("hello user\n")
    await inv.execute(lambda _c: None)
    assert path.read_text() == "hello user\n"

    stale = tool.build({"file_path": "a.txt", "old_string": "user", "new_string": "again"})
    await stale.confirmation()
    path.write_text("hello user, changed\n")
    with pytest.raises(StaleFileError):
        await stale.execute(lambda _c: None)
    assert path.read_text() == "hello user, changed\n"


async def test_errors_and_escapes(ctx: ToolContext, root: Path, outside: Path) -> None:
    tool = ReplaceTool(ctx)
    os.symlink(outside / "secret.txt", root / "link.txt")
    os.symlink(outside, root / "linkdir")
    (root / "dir").mkdir()
    assert "is a directory" in await run_error(tool, {"file_path": "dir", "old_string": "a", "new_string": "b"})
    for bad in ("../outside/secret.txt", str(outside / "secret.txt"), "link.txt", "linkdir/secret.txt"):
        params = {"file_path": bad, "old_string": "top", "new_string": "no"}
        assert "outside the workspace" in await run_error(tool, params), bad
    assert (outside / "secret.txt").read_text() == "top secret\n"
