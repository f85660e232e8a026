"""glob: pattern semantics, recency ordering, ignore counts, case, errors and path escapes."""

from __future__ import annotations

import os
import time
from pathlib import Path

from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.glob import GlobTool, order_by_recency
from agent_lsp.workspace.roots import Workspace

from .conftest import run, run_error, write

OLD = time.time() - 10 * 24 * 3600


def _paths(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.startswith("/")]


async def test_recent_first_then_alphabetical(ctx: ToolContext, root: Path) -> None:
    now = time.time()
    write(root, "b_old.py", mtime=OLD)
    write(root, "a_old.py", mtime=OLD - 5)
    write(root, "pkg/new.py", mtime=now - 60)
    write(root, "pkg/newest.py", mtime=now - 5)
    write(root, "notes.txt")
    result = await run(GlobTool(ctx), {"pattern": "**/*.py"})
    assert _paths(str(result.llm_content)) == [
        str(root / "pkg/newest.py"),
        str(root / "pkg/new.py"),
        str(root / "a_old.py"),
        str(root / "b_old.py"),
    ]
    assert order_by_recency([(Path("/b"), 1.0), (Path("/a"), 2.0)], now=10.0) == [Path("/a"), Path("/b")]


async def test_pattern_semantics(ctx: ToolContext, root: Path) -> None:
    for rel in ("top.ts", "src/a.ts", "src/b.tsx", "src/deep/c.ts", "src/deep/c.js", "docs/README.MD"):
        write(root, rel, mtime=OLD)
    tool = GlobTool(ctx)

    async def names(params: dict[str, object]) -> list[str]:
        out = str((await run(tool, params)).llm_content)
        return [Path(p).relative_to(root).as_posix() for p in _paths(out)]

    assert await names({"pattern": "*.ts"}) == ["top.ts"]
    assert await names({"pattern": "src/**/*.{ts,tsx}"}) == ["src/a.ts", "src/b.tsx", "src/deep/c.ts"]
    assert await names({"pattern": "*.ts", "dir_path": "src/deep"}) == ["src/deep/c.ts"]
    assert await names({"pattern": "src/*/c.?s"}) == ["src/deep/c.js", "src/deep/c.ts"]
    assert await names({"pattern": "**/readme.md"}) == ["docs/README.MD"]
    assert await names({"pattern": "**/readme.md", "case_sensitive": True}) == []
    assert await names({"pattern": str(root / "src") + "/*.ts"}) == ["src/a.ts"]
    none = str((await run(tool, {"pattern": "*.js"})).llm_content)
    assert "No files found" in none and "'**/*.js'" in none


async def test_ignored_files_are_left_out_and_counted(ctx: ToolContext, root: Path) -> None:
    (root / ".git").mkdir()
    write(root, ".gitignore", "gen_*.py\n")
    write(root, ".geminiignore", "secret.py\n")
    for rel in ("a.py", "gen_x.py", "sub/gen_y.py", "secret.py"):
        write(root, rel, mtime=OLD)
    tool = GlobTool(ctx)
    text = str((await run(tool, {"pattern": "**/*.py"})).llm_content)
    assert _paths(text) == [str(root / "a.py")]
    assert "(3 ignored)" in text
    text = str((await run(tool, {"pattern": "**/*.py", "respect_git_ignore": False})).llm_content)
    assert len(_paths(text)) == 3 and "(1 ignored)" in text
    text = str(
        (
            await run(tool, {"pattern": "**/*.py", "respect_git_ignore": False, "respect_gemini_ignore": False})
        ).llm_content
    )
    assert len(_paths(text)) == 4


async def test_multiple_roots(tmp_path: Path, ctx: ToolContext, root: Path) -> None:
    second = tmp_path / "second"
    write(second, "x.md", mtime=OLD)
    write(root, "y.md", mtime=OLD)
    ctx.workspace = Workspace([root, second])
    text = str((await run(GlobTool(ctx), {"pattern": "*.md"})).llm_content)
    assert _paths(text) == sorted([str(root / "y.md"), str(second.resolve() / "x.md")])


async def test_errors_and_escapes(ctx: ToolContext, root: Path, outside: Path) -> None:
    tool = GlobTool(ctx)
    write(root, "f.txt")
    os.symlink(outside, root / "escape")
    assert "must not be empty" in await run_error(tool, {"pattern": " "})
    assert "Not a directory" in await run_error(tool, {"pattern": "*", "dir_path": "f.txt"})
    for params in (
        {"pattern": "*.txt", "dir_path": ".."},
        {"pattern": "*.txt", "dir_path": str(outside)},
        {"pattern": "*.txt", "dir_path": "escape"},
        {"pattern": "../outside/*.txt"},
        {"pattern": str(outside) + "/*.txt"},
        {"pattern": "escape/*.txt"},
    ):
        assert "outside the workspace" in await run_error(tool, params), params
    # Walks never follow links, so a link out is not searched through either.
    text = str((await run(tool, {"pattern": "**/*.txt"})).llm_content)
    assert _paths(text) == [str(root / "f.txt")]


def test_glob_translation() -> None:
    from agent_lsp.tools.file_utils import expand_braces, glob_match, split_glob

    assert expand_braces("a.{ts,{js,jsx}}") == ["a.ts", "a.js", "a.jsx"]
    assert expand_braces("{only}") == ["{only}"]
    assert glob_match("**/*.py", "a.py") and glob_match("**/*.py", "x/y/a.py")
    assert not glob_match("*.py", "x/a.py")
    assert glob_match("src/**", "src/a/b.c") and not glob_match("src/**", "lib/a")
    assert glob_match("f[0-9].txt", "f7.txt") and not glob_match("f[!0-9].txt", "f7.txt")
    assert glob_match("?.md", "a.md") and not glob_match("?.md", "ab.md")
    assert glob_match("A*.MD", "abc.md", case_sensitive=False) and not glob_match("A*.MD", "abc.md")
    assert split_glob("src/**/*.py") == ("src", "**/*.py")
    assert split_glob("*.py") == ("", "*.py")
    assert split_glob("a/b/c.txt") == ("a/b", "c.txt")


async def test_hostile_patterns_are_tool_errors_the_model_reads(ctx: ToolContext, root: Path) -> None:
    """Patterns that used to hang (uncapped brace expansion) or crash (re.error) fail fast with a message."""
    write(root, "]x", mtime=OLD)
    write(root, "a/b.py", mtime=OLD)
    tool = GlobTool(ctx)
    message = await run_error(tool, {"pattern": "{a,b}" * 18})
    assert "Invalid glob pattern" in message and "more than 256 patterns" in message
    message = await run_error(tool, {"pattern": "**/a/**/b/**/c/**/d"})
    assert "more than 3 '**'" in message
    assert "longer than 1000" in await run_error(tool, {"pattern": "a" * 1001})
    # A bracket that only holds ']' is a character class, as in shells: no regex error, a real match.
    text = str((await run(tool, {"pattern": "[]]x"})).llm_content)
    assert _paths(text) == [str(root / "]x")]
    for odd in ("[z-a]x", "[", "a\\", "{}", "[!]", "**/**/**/**/*.py"):
        result = await run(tool, {"pattern": odd})  # odd but valid: an answer, never an exception
        assert result.error is None, odd
    assert _paths(str((await run(tool, {"pattern": "**/**/**/**/*.py"})).llm_content)) == [str(root / "a/b.py")]


async def test_every_glob_the_model_sends_is_checked(ctx: ToolContext, root: Path) -> None:
    """grep's include/exclude and read_many_files' include/exclude go through the same bounded matcher."""
    from agent_lsp.tools.grep import GrepTool
    from agent_lsp.tools.read_many_files import ReadManyFilesTool, read_paths_for_prompt

    write(root, "a.py", "x = 1\n", mtime=OLD)
    bomb = "{a,b}" * 18
    for params in ({"pattern": "x", "include_pattern": bomb}, {"pattern": "x", "exclude_pattern": bomb}):
        assert "more than 256 patterns" in await run_error(GrepTool(ctx), params)
    for params in ({"include": [bomb + "*.py"]}, {"include": ["a.py"], "exclude": [bomb]}):
        assert "more than 256 patterns" in await run_error(ReadManyFilesTool(ctx), params)
    parts, warnings = await read_paths_for_prompt(ctx, [bomb + "*.py", "a.py"])
    assert any("more than 256 patterns" in w for w in warnings)
    assert any("x = 1" in (p.text or "") for p in parts)


def test_brace_expansion_is_capped_not_exponential() -> None:
    import pytest

    from agent_lsp.tools.file_utils import GlobPatternError, expand_braces, glob_regex

    assert len(expand_braces("{a,b}" * 8)) == 256
    with pytest.raises(GlobPatternError):
        expand_braces("{a,b}" * 9)
    with pytest.raises(GlobPatternError):
        glob_regex("x{1..100000}")
    assert glob_regex("{1..3}.txt").fullmatch("2.txt")
