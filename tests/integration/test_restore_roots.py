"""Headless `/restore <id>` over every root: a run edits the primary and an `--include-directories` root, a later
run lists the checkpoints and restores the first, and both roots are back as they were."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.fakes.fake_gemini import FakeGemini
from tests.integration.test_gemini_cli_parity import agent, call, chunk


def test_headless_restore_covers_include_directories(tmp_path: Path) -> None:
    home, project, extra = tmp_path / "home", tmp_path / "proj", tmp_path / "shared-lib"
    for folder in (home / ".gemini", project, extra):
        folder.mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({"general": {"checkpointing": {"enabled": True}}}))
    (project / "a.txt").write_text("one\n")
    (extra / "lib.py").write_text("VALUE = 1\n")
    turns = [
        chunk(call("replace", file_path=str(extra / "lib.py"), old_string="1", new_string="2")),
        chunk(call("write_file", file_path=str(extra / "made.py"), content="x = 1\n")),
        chunk(call("write_file", file_path="a.txt", content="two\n")),
        chunk({"text": "done"}),
    ]
    roots = ("--include-directories", str(extra))
    with FakeGemini(turns) as fake:
        edited = agent(*roots, "--approval-mode", "yolo", "-p", "edit", cwd=project, home=home, fake=fake)
        assert edited.returncode == 0, edited.stderr
        assert (extra / "lib.py").read_text() == "VALUE = 2\n" and (project / "a.txt").read_text() == "two\n"
        listed = agent(*roots, "-p", "/restore", cwd=project, home=home, fake=fake)
        ids = re.findall(r"^- `([^`]+)`", listed.stdout, re.MULTILINE)
        assert len(ids) == 3, listed.stdout + listed.stderr
        restored = agent(*roots, "-p", f"/restore {ids[0]}", cwd=project, home=home, fake=fake)
    assert restored.returncode == 0, restored.stderr
    assert f"`{extra.resolve()}` restored too." in restored.stdout
    assert (extra / "lib.py").read_text() == "VALUE = 1\n" and not (extra / "made.py").exists()
    assert (project / "a.txt").read_text() == "one\n"
