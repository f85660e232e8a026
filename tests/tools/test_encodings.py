"""Edits keep every byte outside the change: encodings, byte-order marks and line endings, through the real tools."""

from __future__ import annotations

import codecs
import random
from pathlib import Path

import pytest

from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.read_file import ReadFileTool
from agent_lsp.tools.read_many_files import ReadManyFilesTool
from agent_lsp.tools.replace import ReplaceTool
from agent_lsp.tools.write_file import WriteFileTool
from agent_lsp.workspace.encoding import decode, encode
from agent_lsp.workspace.filesystem import LocalFileSystem
from agent_lsp.workspace.roots import Workspace

from .conftest import run, run_error, text_of


@pytest.fixture
def disk_ctx(root: Path, tmp_path: Path) -> ToolContext:
    return ToolContext(workspace=Workspace([root]), fs=LocalFileSystem(), temp_dir=tmp_path / "tmp")


def put(root: Path, name: str, data: bytes) -> Path:
    path = root / name
    path.write_bytes(data)
    return path


async def replace(ctx: ToolContext, name: str, old: str, new: str) -> None:
    await run(ReplaceTool(ctx), {"file_path": name, "old_string": old, "new_string": new})


async def test_latin1_bytes_far_from_the_edit_survive(disk_ctx: ToolContext, root: Path) -> None:
    path = put(root, "legacy.txt", b"caf\xe9 old value\nna\xefve\n")
    read = await run(ReadFileTool(disk_ctx), {"file_path": "legacy.txt"})
    assert text_of(read) == "café old value\nnaïve"
    await replace(disk_ctx, "legacy.txt", "old value", "new value")
    assert path.read_bytes() == b"caf\xe9 new value\nna\xefve\n"


async def test_latin1_new_text_is_written_in_the_files_encoding(disk_ctx: ToolContext, root: Path) -> None:
    path = put(root, "legacy.txt", b"caf\xe9\r\nprix: 5 \x80\r\n")  # Windows-1252: 0x80 is the euro sign
    await replace(disk_ctx, "legacy.txt", "prix: 5 €", "prix: 6 € (réduit)")
    assert path.read_bytes() == b"caf\xe9\r\nprix: 6 \x80 (r\xe9duit)\r\n"


async def test_text_the_encoding_cannot_hold_is_refused_and_nothing_changes(disk_ctx: ToolContext, root: Path) -> None:
    data = b"caf\xe9 old\n"
    path = put(root, "legacy.txt", data)
    message = await run_error(
        ReplaceTool(disk_ctx), {"file_path": "legacy.txt", "old_string": "old", "new_string": "→ ✓"}
    )
    assert "Windows-1252" in message and "U+2192" in message and "nothing was written" in message
    assert path.read_bytes() == data


async def test_bytes_without_a_windows_1252_character_fall_back_to_latin1(disk_ctx: ToolContext, root: Path) -> None:
    data = b"a\x81b old\n\x9d\n"  # 0x81 and 0x9D have no Windows-1252 character
    path = put(root, "odd.txt", data)
    await replace(disk_ctx, "odd.txt", "old", "new")
    assert path.read_bytes() == b"a\x81b new\n\x9d\n"


@pytest.mark.parametrize("codec, bom", [("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE)])
async def test_utf16_with_bom_and_crlf(disk_ctx: ToolContext, root: Path, codec: str, bom: bytes) -> None:
    text = "first line\r\nold → value\r\nlast 𝄞\r\n"
    path = put(root, "wide.txt", bom + text.encode(codec))
    read = await run(ReadFileTool(disk_ctx), {"file_path": "wide.txt"})
    assert text_of(read) == "first line\nold → value\nlast 𝄞"
    await replace(disk_ctx, "wide.txt", "old → value\n", "new → value\nadded\n")
    assert path.read_bytes() == bom + "first line\r\nnew → value\r\nadded\r\nlast 𝄞\r\n".encode(codec)
    many = await run(ReadManyFilesTool(disk_ctx), {"include": ["wide.txt"]})
    assert "new → value\nadded\nlast 𝄞" in text_of(many)


async def test_utf8_bom_is_kept_and_never_shown(disk_ctx: ToolContext, root: Path) -> None:
    path = put(root, "bom.cs", codecs.BOM_UTF8 + b"class A {}\n// old\n")
    read = await run(ReadFileTool(disk_ctx), {"file_path": "bom.cs"})
    assert text_of(read) == "class A {}\n// old"
    await replace(disk_ctx, "bom.cs", "// old", "// new ü")
    assert path.read_bytes() == codecs.BOM_UTF8 + "class A {}\n// new ü\n".encode()
    await run(WriteFileTool(disk_ctx), {"file_path": "bom.cs", "content": "class B {}\n"})
    assert path.read_bytes() == codecs.BOM_UTF8 + b"class B {}\n"


async def test_crlf_file_stays_crlf_for_new_lines_too(disk_ctx: ToolContext, root: Path) -> None:
    path = put(root, "win.txt", b"a\r\nb\r\nc\r\n")
    await replace(disk_ctx, "win.txt", "b\n", "b1\nb2\n")
    assert path.read_bytes() == b"a\r\nb1\r\nb2\r\nc\r\n"


async def test_mixed_endings_keep_each_lines_own_ending(disk_ctx: ToolContext, root: Path) -> None:
    # Three CRLF lines and two LF lines: CRLF is dominant, so new lines get CRLF.
    path = put(root, "mixed.txt", b"one\r\ntwo\ntarget\r\nfour\nfive\r\n")
    await replace(disk_ctx, "mixed.txt", "target\n", "changed\ninserted\n")
    assert path.read_bytes() == b"one\r\ntwo\nchanged\r\ninserted\r\nfour\nfive\r\n"
    await replace(disk_ctx, "mixed.txt", "two\nchanged", "TWO\nchanged")
    assert path.read_bytes() == b"one\r\nTWO\nchanged\r\ninserted\r\nfour\nfive\r\n"


async def test_write_file_keeps_endings_of_lines_it_does_not_change(disk_ctx: ToolContext, root: Path) -> None:
    path = put(root, "mixed.txt", b"keep\nalso\r\ndrop\r\nend")
    await run(WriteFileTool(disk_ctx), {"file_path": "mixed.txt", "content": "keep\nalso\nnew line\nend"})
    assert path.read_bytes() == b"keep\nalso\r\nnew line\r\nend"


async def test_binary_file_is_refused_before_a_diff_is_shown(disk_ctx: ToolContext, root: Path) -> None:
    data = b"\x7fELF\x00\x01old\x00\xff"
    path = put(root, "prog.txt", data)
    for tool, params in (
        (ReplaceTool(disk_ctx), {"file_path": "prog.txt", "old_string": "old", "new_string": "new"}),
        (WriteFileTool(disk_ctx), {"file_path": "prog.txt", "content": "text"}),
    ):
        invocation = tool.build(params)
        with pytest.raises(Exception, match="binary file") as info:
            await invocation.confirmation()
        assert getattr(info.value, "error_type", "") == "binary_file"
        assert "binary file" in await run_error(tool, params)
    assert path.read_bytes() == data


async def test_form_feed_and_nel_do_not_split_diff_lines(disk_ctx: ToolContext, root: Path) -> None:
    path = put(root, "ff.py", b"a = 1\n\x0c\nb = 2  # caf\xe9 \x85\nc = 3\n")
    invocation = ReplaceTool(disk_ctx).build({"file_path": "ff.py", "old_string": "c = 3", "new_string": "c = 4"})
    details = await invocation.confirmation()
    assert details is not None and details.diff is not None
    assert "-c = 3\n+c = 4\n" in details.diff.unified
    assert details.diff.unified.count("\n ") == 3  # three whole context lines, none split at \x0c or U+0085
    await invocation.execute(lambda _c: None)
    assert path.read_bytes() == b"a = 1\n\x0c\nb = 2  # caf\xe9 \x85\nc = 4\n"


ENCODINGS = {
    "utf-8": (b"", "utf-8", "ascii é ü 中 𝄞"),
    "utf-8-bom": (codecs.BOM_UTF8, "utf-8", "ascii é ü 中 𝄞"),
    "utf-16-le": (codecs.BOM_UTF16_LE, "utf-16-le", "ascii é ü 中 𝄞"),
    "utf-16-be": (codecs.BOM_UTF16_BE, "utf-16-be", "ascii é ü 中 𝄞"),
    "cp1252": (b"", "cp1252", "ascii é ü € \x0c"),
    "latin-1": (b"", "latin-1", "ascii é ü \x85 \x9d"),  # 0x9D has no Windows-1252 character
}


@pytest.mark.parametrize("name", sorted(ENCODINGS))
async def test_seeded_edits_change_only_the_edited_bytes(disk_ctx: ToolContext, root: Path, name: str) -> None:
    """Random files (random line endings, a random last line) and a random one-line edit: every byte before
    and after the edited line is the same as before."""
    bom, codec, alphabet = ENCODINGS[name]
    rng = random.Random(f"encodings-{name}")
    for trial in range(40):
        lines = [f"L{i} " + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for i in range(12)]
        if codec == "latin-1":
            lines[3] += "\x9d"
        ends = [rng.choice(["\n", "\r\n"]) for _ in lines]
        if rng.random() < 0.3:
            ends[-1] = ""
        path = put(root, f"f{trial}.txt", bom + "".join(a + b for a, b in zip(lines, ends, strict=True)).encode(codec))
        before = path.read_bytes()
        assert decode(before)[1].codec == codec
        k = rng.randrange(len(lines))
        new_line = f"edited {trial} é"
        await replace(disk_ctx, path.name, lines[k], new_line)
        after = path.read_bytes()
        enc = decode(before)[1]
        prefix = encode("".join(a + b for a, b in zip(lines[:k], ends[:k], strict=True)), enc)
        tail = encode("".join(a + b for a, b in zip(lines[k + 1 :], ends[k + 1 :], strict=True)), enc)[len(bom) :]
        middle = encode(new_line + ends[k], enc)[len(bom) :]
        assert before.startswith(prefix) and before.endswith(tail)
        assert after == prefix + middle + tail, (name, trial)


async def test_rewrite_of_a_mixed_file_with_many_repeated_lines(disk_ctx: ToolContext, root: Path) -> None:
    """write_file of a whole file with scattered changes: every kept line keeps its own ending, even the many
    identical '}' lines the matcher treats as too common to anchor on."""
    lines = ["}" if i % 2 else f"line {i}" for i in range(3000)]
    ends = ["\r\n" if i % 3 else "\n" for i in range(3000)]
    path = put(root, "big.txt", "".join(a + b for a, b in zip(lines, ends, strict=True)).encode())
    new_lines = [f"changed {i}" if i % 50 == 0 else line for i, line in enumerate(lines)]
    await run(WriteFileTool(disk_ctx), {"file_path": "big.txt", "content": "\n".join(new_lines) + "\n"})
    assert path.read_bytes() == "".join(a + b for a, b in zip(new_lines, ends, strict=True)).encode()
