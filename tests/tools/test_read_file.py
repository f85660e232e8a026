"""read_file: windows, truncation header, limits, binary refusal, inline media, buffers and path escapes."""

from __future__ import annotations

import os
from pathlib import Path

from agent_lsp.events import Location
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.read_file import ReadFileTool

from .conftest import BufferedFileSystem, run, run_error, write

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + b"\x00" * 20


async def test_reads_whole_small_file(ctx: ToolContext, root: Path) -> None:
    path = write(root, "src/app.py", "one\ntwo\r\nthree\n")
    tool = ReadFileTool(ctx)
    result = await run(tool, {"file_path": "src/app.py"})
    assert result.llm_content == "one\ntwo\nthree"
    assert result.touched_paths == (str(path),)
    inv = tool.build({"file_path": str(path), "start_line": 2, "end_line": 3})
    assert inv.describe() == "Read src/app.py (lines 2-3)"
    assert inv.locations() == [Location(str(path), 2)]


async def test_line_window_has_header(ctx: ToolContext, root: Path) -> None:
    write(root, "f.txt", "".join(f"line {i}\n" for i in range(1, 101)))
    result = await run(ReadFileTool(ctx), {"file_path": "f.txt", "start_line": 10, "end_line": 12})
    text = str(result.llm_content)
    assert "Showing lines 10-12 of 100 total lines" in text
    assert "start_line=13" in text
    assert text.endswith("line 10\nline 11\nline 12")


async def test_large_file_capped_at_2000_lines(ctx: ToolContext, root: Path) -> None:
    write(root, "big.txt", "".join(f"{i}\n" for i in range(1, 5001)))
    text = str((await run(ReadFileTool(ctx), {"file_path": "big.txt"})).llm_content)
    assert text.startswith("IMPORTANT: The file content has been truncated.")
    assert "Showing lines 1-2000 of 5000 total lines" in text
    assert "start_line=2001" in text
    body = text.split("--- FILE CONTENT (truncated) ---\n", 1)[1].split("\n")
    assert body[0] == "1" and body[-1] == "2000" and len(body) == 2000
    tail = str((await run(ReadFileTool(ctx), {"file_path": "big.txt", "start_line": 4999})).llm_content)
    assert tail.endswith("4999\n5000")


async def test_long_lines_are_clipped(ctx: ToolContext, root: Path) -> None:
    write(root, "wide.txt", "x" * 5000 + "\nshort\n")
    text = str((await run(ReadFileTool(ctx), {"file_path": "wide.txt"})).llm_content)
    assert "1 line(s) longer than 2000 characters were shortened" in text
    assert "x" * 2000 + "... [line truncated: 5000 characters]" in text
    assert "x" * 2001 not in text


async def test_legacy_offset_limit(ctx: ToolContext, root: Path) -> None:
    write(root, "f.txt", "a\nb\nc\nd\n")
    text = str((await run(ReadFileTool(ctx), {"file_path": "f.txt", "offset": 1, "limit": 2})).llm_content)
    assert text.endswith("b\nc") and "Showing lines 2-3 of 4" in text


async def test_errors(ctx: ToolContext, root: Path) -> None:
    tool = ReadFileTool(ctx)
    write(root, "f.txt", "a\nb\n")
    (root / "dir").mkdir()
    assert "past the end" in await run_error(tool, {"file_path": "f.txt", "start_line": 5})
    assert "must not be before" in await run_error(tool, {"file_path": "f.txt", "start_line": 2, "end_line": 1})
    assert "File not found" in await run_error(tool, {"file_path": "nope.txt"})
    assert "is a directory" in await run_error(tool, {"file_path": "dir"})
    os.mkfifo(root / "pipe")
    assert "not a regular file" in await run_error(tool, {"file_path": "pipe"})
    assert "required property 'file_path'" in await run_error(tool, {})
    empty = write(root, "empty.txt", "")
    assert (await run(tool, {"file_path": str(empty)})).llm_content == ""


async def test_binary_and_size_limits(ctx: ToolContext, root: Path) -> None:
    tool = ReadFileTool(ctx)
    write(root, "blob.dat", "")
    (root / "blob.dat").write_bytes(b"abc\x00\x01\x02" * 10)
    (root / "latin.txt").write_bytes(bytes(range(128, 256)) * 4)
    assert "binary file" in await run_error(tool, {"file_path": "blob.dat"})
    assert "binary file" in await run_error(tool, {"file_path": "latin.txt"})
    os.truncate(write(root, "huge.txt"), 21 * 1024 * 1024)  # sparse: instant, but 21 MB by size
    assert "over 20 MB" in await run_error(tool, {"file_path": "huge.txt"})


async def test_media_comes_back_as_inline_data(ctx: ToolContext, root: Path) -> None:
    (root / "pic.png").write_bytes(PNG)
    (root / "doc.pdf").write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    write(root, "icon.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>\n")
    tool = ReadFileTool(ctx)
    result = await run(tool, {"file_path": "pic.png"})
    assert isinstance(result.llm_content, list)
    (part,) = result.llm_content
    assert part.inline_data is not None
    assert part.inline_data.mime_type == "image/png" and part.inline_data.data == PNG
    pdf = await run(tool, {"file_path": "doc.pdf"})
    assert isinstance(pdf.llm_content, list) and pdf.llm_content[0].inline_data is not None
    assert pdf.llm_content[0].inline_data.mime_type == "application/pdf"
    assert (await run(tool, {"file_path": "icon.svg"})).llm_content == "<svg xmlns='http://www.w3.org/2000/svg'/>"


async def test_unsaved_buffer_wins(ctx: ToolContext, root: Path, fs: BufferedFileSystem) -> None:
    path = write(root, "f.txt", "disk\n")
    fs.buffers[path] = "buffer\n"
    assert (await run(ReadFileTool(ctx), {"file_path": "f.txt"})).llm_content == "buffer"


async def test_paths_outside_are_refused(ctx: ToolContext, root: Path, outside: Path) -> None:
    tool = ReadFileTool(ctx)
    os.symlink(outside / "secret.txt", root / "link.txt")
    os.symlink(outside, root / "linkdir")
    for bad in ("../outside/secret.txt", str(outside / "secret.txt"), "link.txt", "linkdir/secret.txt"):
        msg = await run_error(tool, {"file_path": bad})
        assert "outside the workspace" in msg, bad
