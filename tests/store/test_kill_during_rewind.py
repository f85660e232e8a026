"""kill -9 during a rewind: ``agent-lsp --resume latest --rewind 0`` (a real subprocess, real shadow-git) is
SIGKILLed at chosen moments; every file is then present and whole (its version before or after the agent), and the
session loads. The project and state are put back from a pristine copy before each trial.

The moment of the kill is searched for, not hoped for: a kill that found every file still the agent's came too
early, one that found every file restored came too late, and the next delay is drawn between the latest of each.
The test goes on until a kill has landed mid-rewind (some files restored, some not) — proof that it tested what it
names — and fails if none has after ``MAX_TRIALS``."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_lsp.store.sessions import SessionStore
from tests.replay_lines import call_line, text_line

FILES = {f"f{i:02d}.txt": f"original {i}\n" * 200 for i in range(16)}  # 16: a window wide enough to hit
AGENT = {name: f"agent's {name}\n" * 300 for name in FILES}
TRIALS = 6  # at least this many kills, whatever they found
MAX_TRIALS = 40  # and more, until one lands mid-rewind


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "AGENT_LSP"))}
    env.update({"HOME": str(home), "AGENT_LSP_HOME": str(home / "state"), "AGENT_LSP_TRUST_WORKSPACE": "true"})
    return env


def test_kill_during_rewind_leaves_whole_files_and_a_loadable_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    monkeypatch.setenv("AGENT_LSP_HOME", str(home / "state"))  # where SessionStore below looks
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text('{"general": {"checkpointing": {"enabled": true}}}')
    project.mkdir()
    for name, text in FILES.items():
        (project / name).write_text(text)
    script = tmp_path / "edits.jsonl"
    lines = [call_line("write_file", {"file_path": n, "content": t}) for n, t in AGENT.items()] + [text_line("ok")]
    script.write_text("".join(json.dumps(line) + "\n" for line in lines))
    base = [sys.executable, "-m", "agent_lsp", "run", "-y", "--fake-responses", str(script)]
    done = subprocess.run([*base, "edit them all"], cwd=project, env=_env(home), capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert all((project / n).read_text() == t for n, t in AGENT.items())
    pristine = tmp_path / "pristine"
    shutil.copytree(project, pristine / "project", symlinks=True)
    shutil.copytree(home / "state", pristine / "state", symlinks=True)

    mixed = 0  # trials killed with some files restored and some not: the kill landed mid-rewind
    outcomes: list[str] = []
    rng = random.Random(28)
    early, late = 0.0, 0.15  # seconds after the rewind's snapshot: the latest too-early and too-late delays
    trial = 0
    while trial < TRIALS or (mixed == 0 and trial < MAX_TRIALS):
        shutil.rmtree(project)
        shutil.rmtree(home / "state")
        shutil.copytree(pristine / "project", project, symlinks=True)
        shutil.copytree(pristine / "state", home / "state", symlinks=True)
        proc = subprocess.Popen(
            [*base, "-r", "latest", "--rewind", "0"],
            cwd=project,
            env=_env(home),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        # The rewind begins with a snapshot of now (the shadow branch moves): the kill lands soon after it.
        (branch,) = (home / "state").glob("projects/*/shadow-git/refs/heads/main")
        before = branch.read_bytes()
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline and branch.read_bytes() == before:
            time.sleep(0.002)
        delay = rng.uniform(early, late)
        time.sleep(delay)
        finished_first = proc.poll() is not None
        proc.kill()
        proc.wait(timeout=30)
        for name in FILES:
            path = project / name
            assert path.exists(), f"trial {trial}: {name} vanished"  # every file is replaced whole, never removed
            assert path.read_text() in (FILES[name], AGENT[name]), f"trial {trial}: {name} is torn"
        restored = sum((project / n).read_text() == FILES[n] for n in FILES)
        if 0 < restored < len(FILES):
            mixed += 1
            outcomes.append(f"{delay:.3f}s mid-rewind ({restored}/{len(FILES)})")
        elif restored == 0:
            outcomes.append(f"{delay:.3f}s too early")
            early = delay
        else:
            outcomes.append(f"{delay:.3f}s too late{' (it had finished)' if finished_first else ''}")
            late = delay
        if late - early < 0.002:  # the window moved (load changes timings): look around it again
            early, late = max(0.0, early - 0.03), late + 0.03
        leftovers = [p.name for p in project.iterdir() if p.name.endswith(".tmp")]
        assert len(leftovers) <= 1, f"trial {trial}: {leftovers}"
        assert sorted(p.name for p in project.iterdir() if not p.name.endswith(".tmp")) == sorted(FILES)
        store = SessionStore(project)
        (info,), _ = store.list()
        loaded = store.load(info.id)
        assert loaded.skipped <= 1
        assert [e.kind for e in loaded.events].count("user_message") in (0, 1)
        trial += 1

    print(outcomes)
    assert mixed > 0, f"no kill landed mid-rewind in {trial} trials: {outcomes}"
    # After the last kill, the rewind finishes: every file is the user's original again.
    finished = subprocess.run(
        [*base, "-r", "latest", "--rewind", "0"], cwd=project, env=_env(home), capture_output=True, timeout=120
    )
    if finished.returncode == 0:
        assert all((project / n).read_text() == t for n, t in FILES.items())
    else:  # the killed run had already rewound it all and cut the conversation
        assert b"no user message 0" in finished.stderr
        assert all((project / n).read_text() == t for n, t in FILES.items())
