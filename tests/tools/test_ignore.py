"""The ignore stack: nested .gitignore with git semantics, .geminiignore, .git, and the pruning walker."""

from __future__ import annotations

import os
from pathlib import Path

from agent_lsp.workspace.ignore import IgnoreFilter

from .conftest import write


def _tree(root: Path) -> None:
    (root / ".git").mkdir()
    write(root, ".git/config", "[core]\n")
    write(root, ".gitignore", "*.log\n!keep.log\nbuild/\n/top_only.txt\n")
    write(root, "a.py", "a")
    write(root, "debug.log", "x")
    write(root, "keep.log", "x")
    write(root, "top_only.txt", "x")
    write(root, "sub/top_only.txt", "x")
    write(root, "build/out.js", "x")
    write(root, "sub/build/deep/x.js", "x")
    write(root, "sub/.gitignore", "*.tmp\n!important.log\n")
    write(root, "sub/a.tmp", "x")
    write(root, "sub/important.log", "x")
    write(root, "sub/b.py", "x")
    write(root, "other/a.tmp", "x")


def _rel(root: Path, paths: list[Path]) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in paths)


def test_git_rules_nested_and_negated(root: Path) -> None:
    _tree(root)
    flt = IgnoreFilter(root)
    assert flt.is_ignored(root / "debug.log")
    assert not flt.is_ignored(root / "keep.log")
    assert flt.is_ignored(root / "top_only.txt")
    assert not flt.is_ignored(root / "sub/top_only.txt")  # anchored to the folder of its .gitignore
    assert flt.is_ignored(root / "build", is_dir=True)
    assert flt.is_ignored(root / "build/out.js")  # inside an ignored folder
    assert flt.is_ignored(root / "sub/build/deep/x.js")
    assert flt.is_ignored(root / "sub/a.tmp")  # nested .gitignore
    assert not flt.is_ignored(root / "other/a.tmp")  # ... applies only below its folder
    assert not flt.is_ignored(root / "sub/important.log")  # deeper file re-includes
    assert flt.is_ignored(root / ".git/config")
    assert not flt.is_ignored(root / "a.py")
    assert not flt.is_ignored(root)


def test_walk_prunes_and_reports(root: Path) -> None:
    _tree(root)
    seen: list[tuple[str, bool]] = []
    files = list(IgnoreFilter(root).walk(on_ignored=lambda p, d: seen.append((p.relative_to(root).as_posix(), d))))
    assert _rel(root, files) == [
        ".gitignore",
        "a.py",
        "keep.log",
        "other/a.tmp",
        "sub/.gitignore",
        "sub/b.py",
        "sub/important.log",
        "sub/top_only.txt",
    ]
    ignored = dict(seen)
    assert ignored["build"] is True and ignored[".git"] is True
    assert "build/out.js" not in ignored  # pruned, never visited
    assert ignored["debug.log"] is False


def test_walk_depth_skip_dir_and_symlinks(root: Path, outside: Path) -> None:
    write(root, "a.txt")
    write(root, "d1/b.txt")
    write(root, "d1/d2/c.txt")
    write(root, "node_modules/m.js")
    os.symlink(outside, root / "link_out")
    os.symlink(outside / "secret.txt", root / "secret_link.txt")
    flt = IgnoreFilter(root)
    assert _rel(root, list(flt.walk(max_depth=0))) == ["a.txt"]
    assert _rel(root, list(flt.walk(max_depth=1, skip_dir=lambda n: n == "node_modules"))) == ["a.txt", "d1/b.txt"]
    assert "secret.txt" not in {p.name for p in flt.walk()}


def test_gitignore_needs_a_repository(root: Path) -> None:
    write(root, ".gitignore", "*.log\n")
    write(root, "x.log")
    assert not IgnoreFilter(root).is_ignored(root / "x.log")
    (root / ".git").mkdir()
    assert IgnoreFilter(root).is_ignored(root / "x.log")


def test_geminiignore_and_switches(root: Path) -> None:
    (root / ".git").mkdir()
    write(root, ".gitignore", "*.log\n")
    write(root, ".geminiignore", "secrets/\n/anchored.txt\n")
    write(root, "secrets/key.pem")
    write(root, "anchored.txt")
    write(root, "deep/anchored.txt")
    write(root, "app.log")
    both = IgnoreFilter(root)
    assert both.is_ignored(root / "secrets/key.pem")
    assert both.is_ignored(root / "anchored.txt")
    assert not both.is_ignored(root / "deep/anchored.txt")
    assert both.is_ignored(root / "app.log")
    no_git = IgnoreFilter(root, respect_git_ignore=False)
    assert not no_git.is_ignored(root / "app.log")
    assert no_git.is_ignored(root / "secrets/key.pem")
    no_gemini = IgnoreFilter(root, respect_gemini_ignore=False)
    assert not no_gemini.is_ignored(root / "secrets/key.pem")
    assert no_gemini.is_ignored(root / "app.log")
    neither = IgnoreFilter(root, respect_git_ignore=False, respect_gemini_ignore=False)
    assert not neither.is_ignored(root / "app.log")
    assert neither.is_ignored(root / ".git", is_dir=True)  # .git is always ignored


def test_rules_above_root_and_info_exclude(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git/info").mkdir(parents=True)
    write(repo, ".git/info/exclude", "*.secret\n")
    write(repo, ".gitignore", "generated/\n")
    root = repo / "pkg"
    write(root, "generated/x.py")
    write(root, "k.secret")
    write(root, "ok.py")
    flt = IgnoreFilter(root.resolve())
    assert _rel(root.resolve(), list(flt.walk())) == ["ok.py"]


def test_edited_ignore_file_is_reloaded(root: Path) -> None:
    (root / ".git").mkdir()
    gi = write(root, ".gitignore", "*.a\n")
    write(root, "x.a")
    write(root, "x.b")
    assert IgnoreFilter(root).is_ignored(root / "x.a")
    gi.write_text("*.b\n")
    os.utime(gi, ns=(gi.stat().st_mtime_ns + 10**9, gi.stat().st_mtime_ns + 10**9))
    fresh = IgnoreFilter(root)
    assert not fresh.is_ignored(root / "x.a")
    assert fresh.is_ignored(root / "x.b")


def test_invalid_ignore_lines_are_skipped_not_fatal(root: Path) -> None:
    """A lone '!' or a trailing backslash (lines git itself ignores) must not make every walk raise."""
    (root / ".git").mkdir()
    write(root, ".gitignore", "!\n*.log\nfoo\\\n[]]x\n")
    write(root, "a.log", "x")
    write(root, "a.py", "x")
    write(root, "]x", "x")
    flt = IgnoreFilter(root)
    assert flt.is_ignored(root / "a.log") and flt.is_ignored(root / "]x")
    assert _rel(root, list(flt.walk())) == [".gitignore", "a.py"]
