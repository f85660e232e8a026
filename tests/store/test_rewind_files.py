"""CheckpointRewinder on a real shadow repository: bytes, modes and deletions put back exactly, the user's files
between calls left alone, undo, and git failures said as RewindError."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_lsp.core.rewind import CallRef, RewindError
from agent_lsp.events import ToolCallInfo
from agent_lsp.store.checkpoints import ShadowGitCheckpointer
from agent_lsp.store.checkpoints.rewind import CheckpointRewinder

BINARY = bytes(range(256)) + b"\r\n\x00tail"


def call(call_id: str) -> ToolCallInfo:
    return ToolCallInfo(call_id=call_id, name="run_shell_command", args={"command": "x"}, title="x", kind="execute")


async def test_files_come_back_byte_for_byte_and_undo_puts_the_rewind_back(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "data.bin").write_bytes(BINARY)
    script = root / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    (root / "gone.txt").write_text("will be deleted\n")
    cp = ShadowGitCheckpointer(root, state_dir=tmp_path / "state", session_id="s1")
    rewinder = CheckpointRewinder(cp)

    await cp.before_tool(call("c1"), [])
    (root / "data.bin").write_bytes(b"changed")
    script.write_text("#!/bin/sh\necho changed\n")
    script.chmod(0o644)
    (root / "gone.txt").unlink()
    (root / "made" / "deep").mkdir(parents=True)
    (root / "made" / "deep" / "new.txt").write_text("new\n")
    await cp.after_tool(call("c1"))
    (root / "users.txt").write_text("the user's, between calls\n")
    await cp.before_tool(call("c2"), [])
    await cp.after_tool(call("c2"))  # a call that changed nothing

    plan = await rewinder.plan([CallRef("m1", "c1"), CallRef("m1", "c2")])
    assert set(plan.restore) == {"data.bin", "run.sh", "gone.txt"} and plan.delete == ("made/deep/new.txt",)
    done = await rewinder.apply([CallRef("m1", "c1"), CallRef("m1", "c2")])
    assert (root / "data.bin").read_bytes() == BINARY
    assert script.read_text() == "#!/bin/sh\necho hi\n" and script.stat().st_mode & 0o111
    assert (root / "gone.txt").read_text() == "will be deleted\n"
    assert not (root / "made").exists()
    assert (root / "users.txt").read_text() == "the user's, between calls\n"

    await rewinder.undo(done)
    assert (root / "data.bin").read_bytes() == b"changed"
    assert not (root / "gone.txt").exists()
    assert (root / "made" / "deep" / "new.txt").read_text() == "new\n"
    # Another session's calls are not this one's.
    other = CheckpointRewinder(ShadowGitCheckpointer(root, state_dir=tmp_path / "state", session_id="s2"))
    assert await other.plan([CallRef("m1", "c1")]) == type(plan)()


async def test_git_missing_is_a_rewind_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("shutil.which", lambda _name: None)
    cp = ShadowGitCheckpointer(tmp_path, state_dir=tmp_path / "state", session_id="s1")
    with pytest.raises(RewindError, match="git was not found"):
        await CheckpointRewinder(cp).apply([CallRef("m1", "c1")])
