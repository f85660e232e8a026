"""Shadow-git checkpoints on real repositories: snapshot, edit, restore, and the project's .git untouched."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from agent_lsp.config.paths import project_state_dir
from agent_lsp.events import Location, ToolCallInfo
from agent_lsp.model.base import Content, FunctionCall, Part
from agent_lsp.store.checkpoints import ShadowGitCheckpointer
from agent_lsp.store.checkpoints.records import CheckpointError, CheckpointsUnavailable

BINARY = bytes(range(256)) + b"\r\n\r\nmixed\nline\rendings\x00"


def git(root: Path, *args: str) -> str:
    env = {"PATH": os.environ["PATH"], "HOME": os.environ["HOME"], "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True)
    return done.stdout


def shadow_git(shadow: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={shadow}", *args], capture_output=True, check=True).stdout


def tree_digest(path: Path) -> dict[str, str]:
    """Every file under ``path`` with a hash of its bytes (and its mode), to prove nothing changed."""
    out: dict[str, str] = {}
    for p in sorted(path.rglob("*")):
        if p.is_file():
            out[str(p.relative_to(path))] = f"{hashlib.sha256(p.read_bytes()).hexdigest()}:{p.stat().st_mode:o}"
    return out


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_bytes(b"original a\n")
    (root / "sub" / "b.bin").write_bytes(BINARY)
    (root / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    (root / ".gitattributes").write_text("* text=auto eol=lf\n")
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    (root / "debug.log").write_text("ignored log\n")
    script = root / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    (root / "link").symlink_to("a.txt")
    git(root, "init", "-q", "-b", "main")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    return root


def edit_call(path: Path) -> ToolCallInfo:
    return ToolCallInfo(
        call_id="call-1",
        name="replace",
        args={"file_path": str(path), "old_string": "original", "new_string": "changed"},
        title=f"Edit {path.name}",
        kind="edit",
        locations=(Location(str(path), 1),),
    )


HISTORY = [
    Content("user", (Part(text="change a.txt"),)),
    Content("model", (Part(function_call=FunctionCall("replace", {"file_path": "a.txt"}, id="call-1")),)),
]


async def test_checkpoint_edit_restore_round_trip(project: Path) -> None:
    git_before = tree_digest(project / ".git")
    originals = {p: (project / p).read_bytes() for p in ("a.txt", "sub/b.bin", "crlf.txt", "run.sh")}
    cp = ShadowGitCheckpointer(project)
    assert cp.enabled and cp.disabled_reason is None

    await cp.before_tool(edit_call(project / "a.txt"), HISTORY)
    [info] = cp.list()
    assert info.tool_name == "replace"
    assert info.file == str(project / "a.txt")
    assert info.id.endswith("-a.txt-replace")
    saved = json.loads((project_state_dir(project) / "checkpoints" / f"{info.id}.json").read_text())
    assert saved["id"] == info.id
    assert saved["tool_call"] == {"name": "replace", "args": edit_call(project / "a.txt").args, "call_id": "call-1"}
    assert len(saved["commit"]) == 40

    # Modify, create (in a new folder), delete; also touch ignored files, which restore must leave alone.
    (project / "a.txt").write_bytes(b"changed a\n")
    (project / "crlf.txt").write_bytes(b"one\ntwo\n")
    (project / "new" / "deep").mkdir(parents=True)
    (project / "new" / "deep" / "c.txt").write_text("created later\n")
    (project / "sub" / "b.bin").unlink()
    (project / "run.sh").chmod(0o644)
    (project / "link").unlink()
    (project / "debug.log").write_text("ignored, changed\n")
    (project / "build").mkdir()
    (project / "build" / "out.o").write_bytes(b"\x7fELF")

    restored = await cp.restore(info.id)

    for rel, data in originals.items():
        assert (project / rel).read_bytes() == data, rel
    assert os.access(project / "run.sh", os.X_OK)
    assert (project / "link").is_symlink() and os.readlink(project / "link") == "a.txt"
    assert not (project / "new").exists()
    assert (project / "debug.log").read_text() == "ignored, changed\n"
    assert (project / "build" / "out.o").read_bytes() == b"\x7fELF"
    assert restored.history == HISTORY
    assert restored.call == saved["tool_call"]
    assert tree_digest(project / ".git") == git_before
    assert git(project, "status", "--porcelain") == ""  # the project's own repo sees its committed state

    # Nothing the restore removed is lost: the pre-restore snapshot holds it.
    shadow = project_state_dir(project) / "shadow-git"
    assert shadow_git(shadow, "show", f"{restored.pre_restore_commit}:new/deep/c.txt") == b"created later\n"


async def test_restore_an_earlier_of_several_checkpoints(project: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    cp = ShadowGitCheckpointer(project, state_dir=state)
    await cp.before_tool(edit_call(project / "a.txt"), HISTORY)
    (project / "a.txt").write_text("second\n")
    await cp.before_tool(edit_call(project / "a.txt"), [*HISTORY, Content("user", (Part(text="more"),))])
    (project / "a.txt").write_text("third\n")
    first, second = cp.list()
    assert first.created <= second.created and first.id != second.id
    assert (state / "shadow-git" / "HEAD").is_file()

    again = await cp.restore(second.id)
    assert (project / "a.txt").read_text() == "second\n"
    assert len(again.history) == 3
    await cp.restore(first.id)
    assert (project / "a.txt").read_bytes() == b"original a\n"
    # A restore to the state the tree is already in changes nothing and still succeeds.
    await cp.restore(first.id)
    assert (project / "a.txt").read_bytes() == b"original a\n"


async def test_empty_project_and_project_without_git(tmp_path: Path) -> None:
    root = tmp_path / "bare"
    root.mkdir()
    cp = ShadowGitCheckpointer(root)
    await cp.before_tool(ToolCallInfo("c", "write_file", {"file_path": str(root / "n.txt")}, "Write", kind="edit"), [])
    (root / "n.txt").write_text("new\n")
    [info] = cp.list()
    assert info.file == str(root / "n.txt")
    result = await cp.restore(info.id)
    assert list(root.iterdir()) == []
    assert result.history == []
    assert not (root / ".git").exists()


async def test_user_git_config_cannot_interfere(project: Path) -> None:
    home = Path(os.environ["HOME"])
    hooks = home / "hooks"
    hooks.mkdir()
    for name in ("pre-commit", "commit-msg", "post-checkout"):
        hook = hooks / name
        hook.write_text("#!/bin/sh\nexit 1\n")
        hook.chmod(0o755)
    (home / ".gitconfig").write_text(
        f"[commit]\n\tgpgsign = true\n[core]\n\thooksPath = {hooks}\n\tautocrlf = true\n"
        "[user]\n\tsigningkey = NOPE\n[gpg]\n\tprogram = /nonexistent/gpg\n"
    )
    cp = ShadowGitCheckpointer(project)
    await cp.before_tool(edit_call(project / "a.txt"), HISTORY)
    (project / "crlf.txt").write_text("gone\n")
    await cp.restore(cp.list()[0].id)
    assert (project / "crlf.txt").read_bytes() == b"one\r\ntwo\r\n"


async def test_state_dir_inside_project_is_never_snapshotted(project: Path) -> None:
    state = project / ".agent-state"
    cp = ShadowGitCheckpointer(project, state_dir=state)
    await cp.before_tool(edit_call(project / "a.txt"), HISTORY)
    files = shadow_git(state / "shadow-git", "ls-tree", "-r", "--name-only", "HEAD").decode().split()
    assert "a.txt" in files
    assert not any(f.startswith(".agent-state") for f in files)
    await cp.before_tool(edit_call(project / "a.txt"), HISTORY)
    await cp.restore(cp.list()[0].id)
    assert (state / "checkpoints").is_dir() and len(cp.list()) == 2


async def test_missing_git_disables_checkpoints_with_one_notice(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    cp = ShadowGitCheckpointer(project)
    assert not cp.enabled
    assert cp.disabled_reason is not None and "git" in cp.disabled_reason
    with pytest.raises(CheckpointsUnavailable):
        await cp.before_tool(edit_call(project / "a.txt"), HISTORY)
    await cp.before_tool(edit_call(project / "a.txt"), HISTORY)  # reported once; later edits go ahead quietly
    with pytest.raises(CheckpointsUnavailable):
        await cp.restore("anything")
    assert cp.list() == []


async def test_unrunnable_git_binary_disables(project: Path, tmp_path: Path) -> None:
    cp = ShadowGitCheckpointer(project, git=str(tmp_path / "no-such-git"))
    with pytest.raises(CheckpointsUnavailable):
        await cp.before_tool(edit_call(project / "a.txt"), HISTORY)
    assert not cp.enabled


async def test_unknown_or_unsafe_checkpoint_ids(project: Path) -> None:
    cp = ShadowGitCheckpointer(project)
    for bad in ("missing", "../../etc/passwd", ""):
        with pytest.raises(CheckpointError):
            await cp.restore(bad)


@pytest.mark.parametrize("delay", [0.0, 0.01, 0.03, 0.06, 0.1])
async def test_cancelled_snapshot_leaves_the_shadow_repo_usable(project: Path, delay: float) -> None:
    for i in range(150):
        (project / "sub" / f"f{i}.txt").write_text(f"file {i}\n" * 50)
    cp = ShadowGitCheckpointer(project)
    task = asyncio.create_task(cp.before_tool(edit_call(project / "a.txt"), HISTORY))
    await asyncio.sleep(delay)  # lands in set-up, in git add or in git commit, depending on the machine
    task.cancel()
    try:
        await task
        cancelled = False  # on a fast machine the later delays may come after the snapshot finished
    except asyncio.CancelledError:
        cancelled = True
    if delay == 0.0:
        assert cancelled  # cancelled before it could start: this case always exercises the cleanup
    state = project_state_dir(project)
    assert list((state / "shadow-git").rglob("*.lock")) == []
    assert list(state.glob("shadow-git.init-*")) == []  # a half-made repository never stays behind
    await cp.before_tool(edit_call(project / "a.txt"), HISTORY)
    (project / "sub" / "f7.txt").write_text("edited\n")
    await cp.restore(cp.list()[-1].id)
    assert (project / "sub" / "f7.txt").read_text() == "file 7\n" * 50


async def test_concurrent_checkpointers_of_one_project_and_odd_args(project: Path) -> None:
    first, second = ShadowGitCheckpointer(project), ShadowGitCheckpointer(project)
    odd = ToolCallInfo("c9", "write_file", {"file_path": str(project / "a.txt"), "tags": {"x"}}, "Write", kind="edit")
    await asyncio.gather(
        *(cp.before_tool(edit_call(project / "a.txt"), HISTORY) for cp in (first, second) for _ in range(3)),
        first.before_tool(odd, HISTORY),
    )
    infos = first.list()
    assert len(infos) == 7 and len({i.id for i in infos}) == 7
    assert second.list() == infos
    (project / "a.txt").write_text("edited\n")
    await second.restore(infos[0].id)
    assert (project / "a.txt").read_bytes() == b"original a\n"
