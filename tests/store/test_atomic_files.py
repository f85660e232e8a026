"""Files the agent writes for itself are whole or absent; readers skip and report what a crash left behind."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from agent_lsp import events as ev
from agent_lsp.atomic_file import json_bytes, write_atomic
from agent_lsp.events import ToolCallInfo
from agent_lsp.store.checkpoints import ShadowGitCheckpointer
from agent_lsp.store.sessions import SessionStore
from agent_lsp.store.telemetry import LocalTelemetry


def test_write_atomic_replaces_keeps_mode_and_claims_names(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "f.json"
    write_atomic(target, b"one")
    target.chmod(0o640)
    write_atomic(target, b"two")
    assert target.read_bytes() == b"two" and target.stat().st_mode & 0o777 == 0o640
    with pytest.raises(FileExistsError):
        write_atomic(target, b"three", exclusive=True)
    assert target.read_bytes() == b"two"
    write_atomic(tmp_path / "deep" / "g.json", b"new", exclusive=True)
    assert sorted(p.name for p in (tmp_path / "deep").iterdir()) == ["f.json", "g.json"]  # no temp files left


def test_a_failed_write_leaves_the_old_file_and_no_temp(tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "inside").write_text("x")
    with pytest.raises(OSError):
        write_atomic(tmp_path / "taken", b"data")  # a non-empty folder cannot be replaced by a file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_json_bytes_never_loses_a_record_to_a_lone_surrogate() -> None:
    assert json.loads(json_bytes({"a": "caf\udce9"})) == {"a": "caf\udce9"}
    assert json_bytes({"a": "café"}) == '{"a": "café"}'.encode()


async def test_checkpoint_reader_skips_a_torn_record_and_lists_the_rest(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    cp = ShadowGitCheckpointer(root, state_dir=tmp_path / "state")
    call = ToolCallInfo("c1", "write_file", {"file_path": str(root / "a.txt"), "content": "caf\udce9"}, "w")
    await cp.before_tool(call, [])
    [first] = cp.list()
    torn = cp.checkpoints_dir / "2000-01-01T00-00-00-000Z-torn-write_file.json"
    torn.write_bytes(b'{"id": "torn", "commit": "ab')
    assert [c.id for c in cp.list()] == [first.id]
    restored = await cp.restore(first.id)
    assert restored.call["args"]["content"] == "caf\udce9"
    assert not [p for p in cp.checkpoints_dir.iterdir() if p.suffix == ".tmp"]


def test_session_load_reports_how_many_lines_it_left_out(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = SessionStore(tmp_path)
    rec = store.recorder("s", tmp_path)
    rec(ev.UserMessage("hello \udce9"))  # a lone surrogate from a model escape is recorded, not dropped
    rec(ev.Content("whole"))
    rec.close()
    path = store.path_for("s")
    path.write_bytes(path.read_bytes() + b'{"type":"event","event":{"kind":"con')  # killed mid-line
    with caplog.at_level(logging.WARNING, logger="agent_lsp.store.sessions"):
        loaded = store.load("s")
    assert loaded.events == [ev.UserMessage("hello \udce9"), ev.Content("whole")]
    assert loaded.skipped == 1
    assert any("1 unreadable line" in r.getMessage() for r in caplog.records)


def test_telemetry_after_a_torn_line_starts_a_new_line(tmp_path: Path) -> None:
    out = tmp_path / "telemetry.jsonl"
    out.write_bytes(b'{"ts":"2024","type":"api_req')
    sink = LocalTelemetry(out, log_prompts=False)
    sink(ev.UserMessage("hi"))
    sink.close()
    lines = out.read_bytes().split(b"\n")
    assert lines[0] == b'{"ts":"2024","type":"api_req'
    assert all(json.loads(line) for line in lines[1:] if line)
    assert os.path.getsize(out) > len(lines[0]) + 1


def test_temp_files_of_killed_writers_are_removed_by_the_next_write(tmp_path: Path) -> None:
    import subprocess
    import sys

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    orphan = tmp_path / f".f.json.abcd1234.{dead.pid}.tmp"
    other_orphan = tmp_path / f".g.json.abcd1234.{dead.pid}.tmp"
    live = tmp_path / f".f.json.abcd1234.{os.getpid()}.tmp"  # a writer still at work: left alone
    user_file = tmp_path / ".f.json.notes.tmp"  # not one of ours
    for p in (orphan, other_orphan, live, user_file):
        p.write_bytes(b"partial")
    write_atomic(tmp_path / "f.json", b"{}")
    assert not orphan.exists() and other_orphan.exists() and live.exists() and user_file.exists()
    write_atomic(tmp_path / "h.json", b"{}", sweep=True)  # the agent's own folders: every orphan goes
    assert not other_orphan.exists() and live.exists() and user_file.exists()


def test_a_workspace_write_removes_every_killed_writers_temp_file_in_its_folder(tmp_path: Path) -> None:
    """Kill -9 caught a write of c.txt, then the next run was killed writing a.txt: the a.txt write must not leave
    c.txt's temp file behind, or strays pile up in the user's folder (seen: 2 after back-to-back kills)."""
    import asyncio
    import subprocess
    import sys

    from agent_lsp.workspace.filesystem import LocalFileSystem

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stray = tmp_path / f".c.txt.abcd1234.{dead.pid}.tmp"
    stray.write_bytes(b"partial")
    user_file = tmp_path / ".c.txt.backup.tmp"  # not one of ours
    user_file.write_bytes(b"mine")
    asyncio.run(LocalFileSystem().write_text(tmp_path / "a.txt", "new\n", expected=None))
    assert (tmp_path / "a.txt").read_bytes() == b"new\n"
    assert not stray.exists() and user_file.read_bytes() == b"mine"


CHECKPOINT_WRITER = r"""
import sys
from datetime import UTC, datetime
from pathlib import Path
from agent_lsp.store.checkpoints import ShadowGitCheckpointer

cp = ShadowGitCheckpointer(Path(sys.argv[1]), state_dir=Path(sys.argv[2]))
big = "x" * 4_000_000  # a long history: writing the record takes most of each loop
print("ready", flush=True)
while True:
    record = {"id": "", "commit": "0" * 40, "tool_call": {"name": "write_file", "args": {}}, "history": [big]}
    cp.records.write(record, datetime.now(UTC), "f.txt", "write_file")
"""


def test_checkpoint_writer_killed_mid_write_leaves_only_whole_records(tmp_path: Path) -> None:
    """A process doing nothing but write large checkpoint records, SIGKILLed at seeded random moments: the
    records on disk are all whole (the old in-place write tore one in most of these kills)."""
    import random
    import signal
    import subprocess
    import sys
    import time

    rng = random.Random(7)
    root, state = tmp_path / "proj", tmp_path / "state"
    root.mkdir()
    records = state / "checkpoints"
    for _ in range(8):
        proc = subprocess.Popen(
            [sys.executable, "-c", CHECKPOINT_WRITER, str(root), str(state)], stdout=subprocess.PIPE, env=os.environ
        )
        try:
            assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
            start = len(list(records.glob("*.json"))) if records.is_dir() else 0
            deadline = time.monotonic() + 30
            while (len(list(records.glob("*.json"))) if records.is_dir() else 0) < start + 2:
                assert time.monotonic() < deadline
                time.sleep(0.005)
            time.sleep(rng.uniform(0, 0.05))
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
    for path in records.glob("*.json"):
        assert json.loads(path.read_bytes())["history"][0] == "x" * 4_000_000, path
    assert len(ShadowGitCheckpointer(root, state_dir=state).list()) == len(list(records.glob("*.json")))


async def test_loading_a_torn_recording_tells_the_user(tmp_path: Path) -> None:
    from agent_lsp.core.ports import AutoConfirmer
    from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup

    root = tmp_path / "proj"
    root.mkdir()
    store = SessionStore(root.resolve())
    rec = store.recorder("torn", root)
    rec(ev.UserMessage("hello"))
    rec.close()
    path = store.path_for("torn")
    path.write_bytes(path.read_bytes() + b'{"type":"event","ev')
    script = tmp_path / "script.jsonl"
    script.write_text("")
    runtime = Runtime(RuntimeOptions(fake_responses=script))
    handle, events = await runtime.load_session("torn", SessionSetup(cwd=root, confirmer=AutoConfirmer()))
    try:
        assert events == [ev.UserMessage("hello")]
        assert [n.message for n in handle.notices if "unreadable line" in n.message] == [
            "1 unreadable line(s) of this session's recording were left out (a write interrupted by a crash "
            "leaves one)."
        ]
    finally:
        await handle.aclose()


async def test_git_lock_left_by_a_killed_git_does_not_block_checkpoints(tmp_path: Path) -> None:
    """A kill of the agent's whole process group can kill git mid-commit, leaving index.lock behind; with no
    agent process holding the project's checkpoint lock, the next checkpoint removes it and succeeds."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    cp = ShadowGitCheckpointer(root, state_dir=tmp_path / "state")
    call = ToolCallInfo("c1", "write_file", {"file_path": str(root / "a.txt"), "content": "b"}, "w")
    await cp.before_tool(call, [])
    (cp.shadow_dir / "index.lock").write_bytes(b"")
    (cp.shadow_dir / "refs" / "heads").mkdir(parents=True, exist_ok=True)
    (cp.shadow_dir / "refs" / "heads" / "main.lock").write_bytes(b"")
    later = ShadowGitCheckpointer(root, state_dir=tmp_path / "state")  # a new agent process after the crash
    (root / "a.txt").write_text("changed\n")
    await later.before_tool(call, [])
    assert len(later.list()) == 2
    assert not (cp.shadow_dir / "index.lock").exists()
    restored = await later.restore(later.list()[0].id)
    assert restored.call["name"] == "write_file" and (root / "a.txt").read_text() == "a\n"
