"""kill -9 at random points of a multi-edit session: no torn file anywhere, and the session loads and resumes.

Each trial runs ``agent-lsp run`` as a real subprocess (replay model, auto_edit, checkpoints and session
recording on) doing eight edits of four files in four encodings and line-ending styles, and SIGKILLs it after a
seeded random number of streamed events plus a random few milliseconds. Trials run back to back on the same
project, so each one also starts from whatever the previous kill left behind (shadow repository included).
"""

from __future__ import annotations

import asyncio
import codecs
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_lsp.config.paths import project_state_dir
from agent_lsp.core.ports import ConfirmationResult
from agent_lsp.events import ConfirmationDetails, ToolCallInfo, ToolCallResponse
from agent_lsp.store.checkpoints import ShadowGitCheckpointer
from agent_lsp.store.sessions import SessionStore

TRIALS = 50
FILLER = "".join(f"filler line {i}\n" for i in range(200))  # records big enough to take a moment to write
STEPS = 2  # edits per file per trial

FILES = {
    "a.txt": lambda n: f"alpha {n}\n{FILLER}".encode(),  # LF, rewritten by write_file
    "b.txt": lambda n: f"x\r\ny {n}\nz\r\n".encode(),  # mixed endings, replace
    "c.txt": lambda n: f"café {n}\n".encode("cp1252"),  # Windows-1252, replace
    "d.txt": lambda n: codecs.BOM_UTF16_LE + f"wide {n}\r\n".encode("utf-16-le"),  # UTF-16 + BOM + CRLF, write_file
}


def _number(name: str, data: bytes) -> int:
    text = data.decode("utf-16") if name == "d.txt" else data.decode("cp1252")
    for word in text.split():
        if word.isdigit():
            return int(word)
    raise AssertionError(f"{name} holds no version number: {data!r}")


def _call(name: str, args: dict[str, object], call_id: str) -> str:
    parts = [{"functionCall": {"name": name, "args": args, "id": call_id}}]
    return json.dumps(
        {
            "method": "generateContentStream",
            "response": [{"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]}],
        }
    )


def _script(path: Path, current: dict[str, int]) -> dict[str, set[bytes]]:
    """Write a replay script that moves every file STEPS versions on; return each file's allowed contents."""
    lines: list[str] = []
    allowed = {name: {FILES[name](n)} for name, n in current.items()}
    for step in range(1, STEPS + 1):
        for name, n in current.items():
            old, new = n + step - 1, n + step
            call_id = f"{name}-{new}"
            if name == "a.txt":
                lines.append(_call("write_file", {"file_path": name, "content": f"alpha {new}\n{FILLER}"}, call_id))
            elif name == "d.txt":
                lines.append(_call("write_file", {"file_path": name, "content": f"wide {new}\n"}, call_id))
            elif name == "b.txt":
                lines.append(
                    _call("replace", {"file_path": name, "old_string": f"y {old}", "new_string": f"y {new}"}, call_id)
                )
            else:
                lines.append(
                    _call(
                        "replace",
                        {"file_path": name, "old_string": f"café {old}", "new_string": f"café {new}"},
                        call_id,
                    )
                )
            allowed[name].add(FILES[name](new))
    done = {"candidates": [{"content": {"role": "model", "parts": [{"text": "done"}]}, "finishReason": "STOP"}]}
    lines.append(json.dumps({"method": "generateContentStream", "response": [done]}))
    path.write_text("\n".join(lines) + "\n")
    return allowed


def _wait_for_group(pgid: int, limit: float = 20.0) -> None:
    """Children the kill did not reach (a git commit in flight) finish on their own; wait for them."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.01)
    os.killpg(pgid, signal.SIGKILL)
    raise AssertionError("a child of the killed agent was still running after 20 s")


class _Approve:
    async def confirm(self, call: ToolCallInfo, details: ConfirmationDetails) -> ConfirmationResult:
        return ConfirmationResult("proceed_once")


@pytest.mark.timeout(300)
def test_sigkill_at_random_points_leaves_no_torn_file(tmp_path: Path) -> None:
    rng = random.Random(20261123)
    root = tmp_path / "proj"
    root.mkdir()
    for name, make in FILES.items():
        (root / name).write_bytes(make(0))
    home = Path(os.environ["HOME"])
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "settings.json").write_text('{"general": {"checkpointing": {"enabled": true}}}')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE"))}
    env["AGENT_LSP_TRUST_WORKSPACE"] = "true"
    state = project_state_dir(root)
    script = tmp_path / "script.jsonl"
    argv = [sys.executable, "-m", "agent_lsp", "run", "-o", "stream-json", "--approval-mode", "auto_edit"]
    argv += ["--fake-responses", str(script), "move every file on"]
    kinds: list[str] = []  # the events a whole run streams
    gaps: list[float] = []  # seconds from each event to the next, in the first run
    killed_sessions: list[str] = []
    stray_temps = 0
    checked: set[Path] = set()

    for trial in range(TRIALS + 1):
        current = {name: _number(name, (root / name).read_bytes()) for name in FILES}
        allowed = _script(script, current)
        sessions_before = {p.stem for p in (state / "sessions").glob("*.jsonl")}
        proc = subprocess.Popen(
            argv,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        assert proc.stdout is not None
        if trial == 0:
            # The first run is not killed: it proves the script works, and times the gap after each streamed event.
            stamps = [time.monotonic()]
            for line in proc.stdout:
                stamps.append(time.monotonic())
                kinds.append(json.loads(line)["type"])  # Gemini CLI's stream-json events
            gaps = [b - a for a, b in itertools.pairwise(stamps[1:])] + [0.01]
            assert proc.wait(timeout=60) == 0
            assert {name: (root / name).read_bytes() for name in FILES} == {name: FILES[name](STEPS) for name in FILES}
        else:
            # Every other trial is killed in the gap after a "tool_use" event, where the checkpoint is taken and
            # the edit written, the others anywhere; the delay is spread over that event's gap in the first run.
            scheduled = [i for i, kind in enumerate(kinds) if kind == "tool_use"]
            if trial % 2:
                cut = rng.choice(scheduled) + 1
                delay = gaps[cut - 1] * rng.uniform(0.5, 1.2)  # the record is written at the end, after git
            else:
                cut = rng.randint(1, len(kinds))
                delay = gaps[cut - 1] * rng.uniform(0, 1.2)
            for _ in range(cut):
                if not proc.stdout.readline():
                    break
            time.sleep(delay)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
            _wait_for_group(proc.pid)
            killed_sessions += sorted({p.stem for p in (state / "sessions").glob("*.jsonl")} - sessions_before)
        proc.stdout.close()

        # Every workspace file is one whole version: the one before the trial or one the trial wrote.
        for name in FILES:
            data = (root / name).read_bytes()
            assert data in allowed[name], (trial, name, data)
        # A kill between write and rename leaves that one file's temp file, until the next write in the folder
        # (of any file) removes it: strays never pile up, whichever file each kill caught.
        strays = list(root.glob(".*.tmp"))
        assert len(strays) <= 1, strays
        stray_temps += len(strays)
        # Every checkpoint record is whole JSON naming a snapshot (records of earlier trials were checked then).
        for path in sorted(set((state / "checkpoints").glob("*.json")) - checked):
            data = json.loads(path.read_bytes())
            assert data["commit"] and data["tool_call"]["name"] in ("replace", "write_file"), path
            checked.add(path)
        # This trial's session recording loads; at most its last line (the one being written) is left out.
        for session_id in {p.stem for p in (state / "sessions").glob("*.jsonl")} - sessions_before:
            loaded = SessionStore(root).load(session_id)
            assert loaded.skipped <= 1, (trial, session_id)
            # Killed before its prompt began (start-up work runs between creating the recording and the prompt),
            # a recording holds its header only: it loads, with no events. Otherwise the prompt comes first.
            assert not loaded.events or loaded.events[0].kind == "user_message", (trial, session_id)

    assert len(ShadowGitCheckpointer(root).list()) == len(checked)
    assert len(killed_sessions) >= TRIALS - 5  # nearly every trial got far enough to start recording
    print(f"\n{TRIALS} kills, {len(kinds)} events per whole run, {stray_temps} stray temp file(s) seen after a kill")
    asyncio.run(_resume_and_restore(root, tmp_path, killed_sessions[-1], env))


async def _resume_and_restore(root: Path, tmp_path: Path, session_id: str, env: dict[str, str]) -> None:
    """After all the kills: the last killed session resumes and edits, and the newest checkpoint restores."""
    from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup

    current = {name: _number(name, (root / name).read_bytes()) for name in FILES}
    script = tmp_path / "resume.jsonl"
    _script(script, current)
    runtime = Runtime(RuntimeOptions(fake_responses=script, approval_mode="auto_edit", env=env))
    before = SessionStore(root).load(session_id)
    handle, events = await runtime.load_session(session_id, SessionSetup(cwd=root, confirmer=_Approve()))
    assert events == before.events
    try:
        responses = [e async for e in handle.session.send("carry on") if isinstance(e, ToolCallResponse)]
    finally:
        await handle.aclose()
    assert [r.status for r in responses] == ["success"] * (STEPS * len(FILES))
    assert {name: (root / name).read_bytes() for name in FILES} == {
        name: FILES[name](current[name] + STEPS) for name in FILES
    }
    after = SessionStore(root).load(session_id)
    assert after.events[: len(before.events)] == before.events and len(after.events) > len(before.events)
    assert after.info.prompt_count == before.info.prompt_count + 1
    cp = ShadowGitCheckpointer(root)
    newest = cp.list()[-1]  # taken just before the resumed prompt's last edit, of d.txt
    assert newest.tool_name == "write_file" and newest.file is not None and newest.file.endswith("d.txt")
    await cp.restore(newest.id)
    expected = {name: FILES[name](current[name] + STEPS) for name in FILES}
    expected["d.txt"] = FILES["d.txt"](current["d.txt"] + STEPS - 1)
    assert {name: (root / name).read_bytes() for name in FILES} == expected
    # Every file was written again since the kills, so no temp file of a killed writer is left anywhere.
    for folder in (root, cp.checkpoints_dir):
        assert not [n for n in os.listdir(folder) if n.endswith(".tmp")], folder
