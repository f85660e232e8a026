"""write_file: create/overwrite with diffs, user modification, stale refusal, placeholders, CRLF, escapes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_lsp.errors import StaleFileError
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.file_utils import find_omission_placeholder
from agent_lsp.tools.write_file import WriteFileTool

from .conftest import run, run_error, write


async def test_creates_file_and_parents(ctx: ToolContext, root: Path) -> None:
    result = await run(WriteFileTool(ctx), {"file_path": "new/dir/a.py", "content": "print('hi')\n"})
    path = root / "new/dir/a.py"
    assert path.read_text() == "print('hi')\n"
    assert result.llm_content == f"Successfully created and wrote to new file: {path}."
    assert result.diff is not None and result.diff.old_text is None and result.diff.new_text == "print('hi')\n"
    assert result.diff.unified.startswith("--- /dev/null\n+++ b/new/dir/a.py\n")
    assert result.display == "Created `new/dir/a.py` (+1 -0)"
    assert result.touched_paths == (str(path),)


async def test_confirmation_shows_the_diff_then_writes(ctx: ToolContext, root: Path) -> None:
    path = write(root, "a.txt", "one\ntwo\n")
    tool = WriteFileTool(ctx)
    params = {"file_path": str(path), "content": "one\n2\n"}
    assert tool.validate(params) is None
    inv = tool.build(params)
    assert inv.describe() == "Write a.txt" and inv.modifiable
    details = await inv.confirmation()
    assert details is not None and details.type == "edit" and details.path == str(path)
    assert details.diff is not None and details.diff.old_text == "one\ntwo\n"
    assert "-two\n+2\n" in details.diff.unified
    result = await inv.execute(lambda _c: None)
    assert path.read_text() == "one\n2\n"
    assert result.llm_content == f"Successfully overwrote file: {path}."
    assert result.display == "Updated `a.txt` (+1 -1)"


async def test_user_modification_is_what_gets_written(ctx: ToolContext, root: Path) -> None:
    path = write(root, "a.txt", "old\n")
    inv = WriteFileTool(ctx).build({"file_path": "a.txt", "content": "model\n"})
    await inv.confirmation()
    inv.apply_modification("user\n")
    result = await inv.execute(lambda _c: None)
    assert path.read_text() == "user\n"
    assert result.diff is not None and result.diff.new_text == "user\n"
    assert "did not apply it exactly as proposed" in str(result.llm_content)
    assert "hunk 1 (replace line 1 `old` with `model`): applied with the user's own changes" in str(result.llm_content)


async def test_stale_file_is_refused(ctx: ToolContext, root: Path) -> None:
    path = write(root, "a.txt", "v1\n")
    inv = WriteFileTool(ctx).build({"file_path": "a.txt", "content": "agent\n"})
    await inv.confirmation()
    path.write_text("someone else\n")
    with pytest.raises(StaleFileError):
        await inv.execute(lambda _c: None)
    assert path.read_text() == "someone else\n"
    created = WriteFileTool(ctx).build({"file_path": "b.txt", "content": "agent\n"})
    await created.confirmation()
    write(root, "b.txt", "raced\n")
    with pytest.raises(StaleFileError):
        await created.execute(lambda _c: None)


@pytest.mark.parametrize(
    "line",
    [
        "// ... rest of the code ...",
        "# rest of code here",
        "/* ... existing code ... */",
        "    // ... existing methods remain unchanged",
        "<!-- rest of the file -->",
        "...existing code...",
    ],
)
async def test_placeholders_are_refused(ctx: ToolContext, root: Path, line: str) -> None:
    content = f"def f():\n    return 1\n{line}\n"
    msg = await run_error(WriteFileTool(ctx), {"file_path": "a.py", "content": content})
    assert "omission placeholder" in msg and "complete" in msg
    assert not (root / "a.py").exists()


async def test_placeholder_like_text_that_is_fine(ctx: ToolContext, root: Path) -> None:
    prose = "The existing code here is fine.\nWe kept the rest of the code as it was.\n"
    assert find_omission_placeholder(prose, None) is None
    already = write(root, "doc.md", "# rest of code here\n")
    await run(WriteFileTool(ctx), {"file_path": str(already), "content": "# rest of code here\nmore\n"})
    assert already.read_text() == "# rest of code here\nmore\n"


async def test_crlf_file_stays_crlf(ctx: ToolContext, root: Path) -> None:
    path = write(root, "win.txt", "a\r\nb\r\n")
    await run(WriteFileTool(ctx), {"file_path": "win.txt", "content": "a\nc\n"})
    assert path.read_bytes() == b"a\r\nc\r\n"


async def test_errors_and_escapes(ctx: ToolContext, root: Path, outside: Path) -> None:
    tool = WriteFileTool(ctx)
    (root / "dir").mkdir()
    os.symlink(outside / "secret.txt", root / "link.txt")
    os.symlink(outside, root / "linkdir")
    assert "is a directory" in await run_error(tool, {"file_path": "dir", "content": "x"})
    assert "required property 'content'" in await run_error(tool, {"file_path": "a"})
    for bad in ("../evil.txt", str(outside / "new.txt"), "link.txt", "linkdir/new.txt"):
        assert "outside the workspace" in await run_error(tool, {"file_path": bad, "content": "x"}), bad
    assert (outside / "secret.txt").read_text() == "top secret\n"
    assert not (outside / "new.txt").exists() and not (root.parent / "evil.txt").exists()


def test_unified_diff_and_stat() -> None:
    from agent_lsp.linediff import stat
    from agent_lsp.tools.diffing import make_file_diff, unified_diff

    assert unified_diff("a.txt", "same\n", "same\n") == ""
    text = unified_diff("a.txt", "x\n++y\n", "x\n+++z")
    assert text.startswith("--- a/a.txt\n+++ b/a.txt\n")
    assert "-++y\n++++z\n\\ No newline at end of file\n" in text
    assert stat(text) == (1, 1)
    fd = make_file_diff("/w/a.txt", None, "new\n", label="a.txt")
    assert fd.path == "/w/a.txt" and fd.old_text is None and fd.unified.startswith("--- /dev/null\n+++ b/a.txt")
