"""read_many_files and @path expansion: globs, folders, excludes, ignores, media, limits and escapes."""

from __future__ import annotations

import os
from pathlib import Path

from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.read_many_files import ReadManyFilesTool, read_paths_for_prompt

from .conftest import BufferedFileSystem, run, run_error, text_of, write
from .test_read_file import PNG


def _tree(root: Path) -> None:
    (root / ".git").mkdir()
    write(root, ".gitignore", "*.log\n")
    write(root, "src/a.py", "A = 1\n")
    write(root, "src/pkg/b.py", "B = 2\n")
    write(root, "src/notes.md", "# notes\n")
    write(root, "src/debug.log", "log\n")
    write(root, "src/node_modules/dep/index.js", "dep\n")
    write(root, "src/package-lock.json", "{}\n")
    (root / "src/logo.png").write_bytes(PNG)
    (root / "src/blob.bin").write_bytes(b"\x00\x01\x02")
    write(root, "README.md", "readme\n")


def _sections(text: str) -> list[str]:
    return [ln[4:-4] for ln in text.splitlines() if ln.startswith("--- /") and ln.endswith(" ---")]


async def test_paths_folders_and_globs(ctx: ToolContext, root: Path) -> None:
    _tree(root)
    result = await run(ReadManyFilesTool(ctx), {"include": ["src", "README.md"]})
    text = text_of(result)
    assert _sections(text) == [str(root / p) for p in ("README.md", "src/a.py", "src/notes.md", "src/pkg/b.py")]
    assert f"--- {root / 'src/a.py'} ---\n\nA = 1\n\n" in text
    assert "\n- src/logo.png: image file (name it explicitly to include it)\n" in text
    assert "--- End of content ---" in text and "- src/blob.bin: binary file" in text
    assert "1 file(s) or folder(s) ignored" in text
    assert "node_modules" not in text and "package-lock" not in text
    assert set(result.touched_paths) == {
        str(root / p) for p in ("README.md", "src/a.py", "src/notes.md", "src/pkg/b.py")
    }
    assert result.display is not None and result.display.startswith("Read **4** file(s):")

    globbed = text_of(await run(ReadManyFilesTool(ctx), {"include": ["*.py"]}))
    assert _sections(globbed) == [str(root / "src/a.py"), str(root / "src/pkg/b.py")]
    shallow = text_of(await run(ReadManyFilesTool(ctx), {"include": ["src"], "recursive": False}))
    assert str(root / "src/pkg/b.py") not in _sections(shallow)
    excluded = text_of(await run(ReadManyFilesTool(ctx), {"include": ["src"], "exclude": ["pkg", "*.md"]}))
    assert _sections(excluded) == [str(root / "src/a.py")]


async def test_default_excludes_and_ignores_can_be_turned_off(ctx: ToolContext, root: Path) -> None:
    _tree(root)
    params = {
        "include": ["src/**/*.js", "src/*.json", "src/*.log"],
        "useDefaultExcludes": False,
        "file_filtering_options": {"respect_git_ignore": False},
    }
    text = text_of(await run(ReadManyFilesTool(ctx), params))
    assert _sections(text) == [
        str(root / p) for p in ("src/debug.log", "src/node_modules/dep/index.js", "src/package-lock.json")
    ]


async def test_media_when_named(ctx: ToolContext, root: Path) -> None:
    _tree(root)
    for include in (["src/logo.png"], ["src/*.png"]):
        result = await run(ReadManyFilesTool(ctx), {"include": include})
        assert isinstance(result.llm_content, list)
        inline = [p.inline_data for p in result.llm_content if p.inline_data is not None]
        assert len(inline) == 1 and inline[0].mime_type == "image/png" and inline[0].data == PNG


async def test_buffers_truncation_and_skips(
    ctx: ToolContext, root: Path, fs: BufferedFileSystem, outside: Path
) -> None:
    _tree(root)
    fs.buffers[root / "src/a.py"] = "A = 'unsaved'\n"
    write(root, "long.txt", "".join(f"{i}\n" for i in range(2500)))
    os.symlink(outside, root / "escape")
    include = ["src/a.py", "long.txt", "missing.txt", "../outside/secret.txt", "escape/secret.txt", "src/debug.log"]
    text = text_of(await run(ReadManyFilesTool(ctx), {"include": include}))
    assert "A = 'unsaved'" in text
    assert "[Truncated: showing lines 1-2000 of 2500; use read_file with start_line=2001" in text
    assert "- missing.txt: not found" in text
    assert "- ../outside/secret.txt: outside the workspace" in text
    assert "- escape/secret.txt: outside the workspace" in text
    assert "- src/debug.log: ignored by .gitignore / .geminiignore" in text
    assert "top secret" not in text


async def test_nothing_found_and_validation(ctx: ToolContext, root: Path) -> None:
    tool = ReadManyFilesTool(ctx)
    result = await run(tool, {"include": ["*.nothing"]})
    assert str(result.llm_content).startswith("No files matching the criteria were found")
    assert "include must name" in await run_error(tool, {"include": [" "]})
    assert "required property 'include'" in await run_error(tool, {})
    assert tool.build({"include": ["src/x.py", "*.md"]}).describe() == "Read files: src/x.py, *.md"


async def test_read_paths_for_prompt(ctx: ToolContext, root: Path, outside: Path) -> None:
    _tree(root)
    parts, warnings = await read_paths_for_prompt(
        ctx, ["src/a.py", "src/pkg", "src/logo.png", "nope.md", str(outside), "src/debug.log"]
    )
    # No frame here: core/mentions.MentionExpander puts the one frame around files and resources alike.
    assert not any("--- Content from referenced files ---" in (p.text or "") for p in parts)
    assert not any("--- End of content ---" in (p.text or "") for p in parts)
    texts = [p.text for p in parts if p.text]
    assert "\nContent from @src/a.py:\nA = 1" in texts
    assert "\nContent from @src/pkg/b.py:\nB = 2" in texts
    assert any(p.inline_data is not None and p.inline_data.data == PNG for p in parts)
    assert "Skipped @nope.md: not found" in warnings
    assert f"Skipped @{outside}: outside the workspace" in warnings
    assert "Skipped @src/debug.log: ignored by .gitignore / .geminiignore" in warnings
    assert await read_paths_for_prompt(ctx, ["nope"]) == ([], ["Skipped @nope: not found"])
