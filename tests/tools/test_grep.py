"""grep_search: ripgrep and the pure-Python fallback agree; ignores, filters, caps, buffers, cancel, escapes."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.grep import GrepTool
from agent_lsp.tools.grep_rg import find_rg

from .conftest import BufferedFileSystem, run, run_error, write


def _tree(root: Path) -> None:
    (root / ".git").mkdir()
    write(root, ".git/HEAD", "needle in git\n")
    write(root, ".gitignore", "build/\n*.gen.py\n")
    write(root, ".geminiignore", "/secret/\n")
    write(root, "src/app.py", "import os\n\ndef Needle():\n    return 'needle'\n\n\nx = 1\n# NEEDLE end\n")
    write(root, "src/util/helpers.py", "def helper():\n    pass  # needle here\n")
    write(root, "src/web/page.ts", "const needle = 1;\n")
    write(root, "src/web/page.tsx", "<Needle/>\n")
    write(root, "README.md", "No match here\nA needle.\n")
    write(root, ".hidden/conf.py", "needle = True\n")
    write(root, "build/out.py", "needle\n")
    write(root, "src/z.gen.py", "needle\n")
    write(root, "secret/key.txt", "needle\n")
    (root / "bin.dat").write_bytes(b"needle\x00\x01binary\n")


async def _both(ctx: ToolContext, params: dict[str, Any]) -> str:
    fast = str((await run(GrepTool(ctx), params)).llm_content)
    slow = str((await run(GrepTool(ctx, use_ripgrep=False), params)).llm_content)
    assert fast == slow, f"rg and fallback differ for {params}:\n{fast}\n----\n{slow}"
    return fast


def test_ripgrep_binary_is_found() -> None:
    rg = find_rg()
    assert rg is not None and Path(rg).name.startswith("rg")


async def test_matches_grouped_by_file(ctx: ToolContext, root: Path) -> None:
    _tree(root)
    text = await _both(ctx, {"pattern": "needle"})
    assert text.splitlines() == [
        'Found 8 match(es) for pattern "needle" in path ".":',
        "---",
        "File: .hidden/conf.py",
        "L1: needle = True",
        "---",
        "File: README.md",
        "L2: A needle.",
        "---",
        "File: src/app.py",
        "L3: def Needle():",
        "L4:     return 'needle'",
        "--",
        "L8: # NEEDLE end",
        "---",
        "File: src/util/helpers.py",
        "L2:     pass  # needle here",
        "---",
        "File: src/web/page.ts",
        "L1: const needle = 1;",
        "---",
        "File: src/web/page.tsx",
        "L1: <Needle/>",
        "---",
    ]


async def test_options_agree_between_rg_and_fallback(ctx: ToolContext, root: Path) -> None:
    _tree(root)
    cases: list[dict[str, Any]] = [
        {"pattern": "needle", "case_sensitive": True},
        {"pattern": "needle", "include_pattern": "*.py"},
        {"pattern": "needle", "include_pattern": "*.{ts,tsx}"},
        {"pattern": "needle", "include_pattern": "web/*.ts", "dir_path": "src"},
        {"pattern": "needle", "exclude_pattern": "*.py"},
        {"pattern": "needle", "dir_path": "src", "context": 1},
        {"pattern": "needle", "dir_path": "src/app.py", "before": 2},
        {"pattern": "'needle'", "fixed_strings": True},
        {"pattern": "ne+dle\\b", "names_only": True},
        {"pattern": "def \\w+\\(", "after": 1},
        {"pattern": "nothing-matches-this"},
    ]
    for params in cases:
        await _both(ctx, params)
    text = await _both(ctx, {"pattern": "needle", "include_pattern": "*.py"})
    assert "z.gen.py" not in text and "build/" not in text  # a whitelist glob does not revive ignored files
    names = await _both(ctx, {"pattern": "needle", "names_only": True, "dir_path": "src"})
    assert names.splitlines()[1:] == ["src/app.py", "src/util/helpers.py", "src/web/page.ts", "src/web/page.tsx"]


async def test_ignore_settings(ctx: ToolContext, root: Path) -> None:
    _tree(root)
    ctx.respect_git_ignore = False
    ctx.respect_gemini_ignore = False
    text = await _both(ctx, {"pattern": "needle", "names_only": True})
    for rel in ("build/out.py", "src/z.gen.py", "secret/key.txt"):
        assert rel in text
    assert ".git/" not in text and "bin.dat" not in text


async def test_cap_is_reported(ctx: ToolContext, root: Path) -> None:
    for i in range(6):
        write(root, f"f{i}.txt", "hit\n" * 5)
    for tool in (GrepTool(ctx), GrepTool(ctx, use_ripgrep=False)):
        result = await run(tool, {"pattern": "hit", "total_max_matches": 7})
        text = str(result.llm_content)
        assert text.startswith('Found 7 match(es) for pattern "hit"') and "limited to total_max_matches=7" in text
        assert sum(1 for ln in text.splitlines() if ln.startswith("L")) == 7
        full = str((await run(tool, {"pattern": "hit", "total_max_matches": 30})).llm_content)
        assert "limited" not in full and full.startswith("Found 30 match(es)")


async def test_bad_regex_and_python_only_syntax(ctx: ToolContext, root: Path) -> None:
    write(root, "a.txt", "foobar\nfoobaz\n")
    assert "Invalid regular expression" in await run_error(GrepTool(ctx), {"pattern": "(unclosed"})
    assert "Invalid regular expression" in await run_error(GrepTool(ctx, use_ripgrep=False), {"pattern": "(x"})
    text = str((await run(GrepTool(ctx), {"pattern": "foo(?=baz)"})).llm_content)  # look-ahead: rg cannot
    assert "L2: foobaz" in text and "L1:" not in text


async def test_unsaved_buffers_override_disk(ctx: ToolContext, root: Path, fs: BufferedFileSystem) -> None:
    edited = write(root, "edited.py", "old_token = 1\n")
    write(root, "plain.py", "new_token = 0\n")
    fs.buffers[edited] = "x = 1\nnew_token = 2\n"
    fs.buffers[root / "untitled.py"] = "new_token = 3\n"  # open, never saved
    for tool in (GrepTool(ctx), GrepTool(ctx, use_ripgrep=False)):
        text = str((await run(tool, {"pattern": "_token"})).llm_content)
        assert "old_token" not in text
        assert "File: edited.py\nL2: new_token = 2" in text
        assert "File: untitled.py\nL1: new_token = 3" in text and "File: plain.py" in text


async def test_cancel_kills_ripgrep(ctx: ToolContext, root: Path) -> None:
    fifo = root / "grep-cancel-probe.fifo"
    os.mkfifo(fifo)  # rg blocks opening a pipe nobody writes to
    task = asyncio.create_task(run(GrepTool(ctx), {"pattern": "x", "dir_path": str(fifo)}))
    await asyncio.sleep(0.3)
    assert _rg_processes(fifo.name), "rg should be running"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not _rg_processes(fifo.name)


def _rg_processes(marker: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmd = fh.read()
            with open(f"/proc/{pid}/stat") as fh:
                state = fh.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmd and state != "Z":
            found.append(int(pid))
    return found


async def test_errors_and_escapes(ctx: ToolContext, root: Path, outside: Path) -> None:
    tool = GrepTool(ctx)
    os.symlink(outside, root / "escape")
    write(root, "a.txt", "secret\n")
    assert "must not be empty" in await run_error(tool, {"pattern": ""})
    assert "Path not found" in await run_error(tool, {"pattern": "x", "dir_path": "missing"})
    for bad in ("..", str(outside), "escape", "../outside"):
        assert "outside the workspace" in await run_error(tool, {"pattern": "secret", "dir_path": bad}), bad
    for t in (tool, GrepTool(ctx, use_ripgrep=False)):
        text = str((await run(t, {"pattern": "secret"})).llm_content)
        assert "File: a.txt" in text and "escape" not in text  # links are not followed
