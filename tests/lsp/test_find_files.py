"""agent/findFiles over a real LSP subprocess, and the fuzzy search behind it (workspace/file_search.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from agent_lsp.workspace.file_search import FileSearch, score
from tests.replay_lines import text_line


def _tree(root: Path) -> None:
    (root / ".git").mkdir()
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / ".geminiignore").write_text("secret.txt\n")
    for rel in ("src/app/main.py", "src/app/models.py", "docs/guide.md", "build/out.py", "debug.log", "secret.txt"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")


def _score(query: str, path: str) -> float:
    value = score(query, path)
    assert value is not None, (query, path)
    return value


def test_score_prefers_the_file_name_then_runs_then_short_paths() -> None:
    assert _score("main", "src/app/main.py") > _score("main", "src/main_things/other.py")
    assert _score("main", "src/app/main.py") > _score("main", "src/app/domain.py")
    assert _score("sam", "src/app/main.py"), "letters in order across segments still match"
    assert score("xyz", "src/app/main.py") is None
    assert _score("", "a.py") > _score("", "deep/down/a.py")


def test_search_respects_gitignore_and_geminiignore_and_lists_folders(tmp_path: Path) -> None:
    _tree(tmp_path)
    found, truncated = FileSearch().search([tmp_path], "", 50)
    paths = {f.relative for f in found}
    assert {"src/", "src/app/", "docs/", "src/app/main.py", "docs/guide.md", ".gitignore"} <= paths
    assert not {"build/out.py", "build/", "debug.log", "secret.txt"} & paths
    assert not truncated
    best, _ = FileSearch().search([tmp_path], "mod", 1)
    assert [f.relative for f in best] == ["src/app/models.py"]


def test_a_big_tree_is_cut_and_says_so(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"f{i:02}.txt").write_text("")
    found, truncated = FileSearch(max_scanned=10).search([tmp_path], "", 100)
    assert truncated and len(found) == 10


async def test_agent_find_files_answers_from_the_editors_folders(launch: Any) -> None:
    editor = await launch([text_line("unused")])
    _tree(editor.project)
    answer = await editor.request("agent/findFiles", {"query": "main", "limit": 3})
    first = answer["items"][0]
    assert first == {
        "path": "src/app/main.py",
        "uri": (editor.project / "src" / "app" / "main.py").as_uri(),
        "isDirectory": False,
    }
    assert answer["truncated"] is False
    folders = await editor.request("agent/findFiles", {"query": "app"})
    assert {"path": "src/app/", "uri": (editor.project / "src" / "app").as_uri(), "isDirectory": True} in folders[
        "items"
    ]
    with pytest.raises(JsonRpcException, match="limit must be a positive integer"):
        await editor.request("agent/findFiles", {"query": "x", "limit": 0})
