"""Rewind from the headless command line (real subprocesses, the fake Gemini server, real shadow-git):
``--resume --rewind N`` and ``/rewind`` after a two-edit conversation; the disk and the next request checked."""
# One test on purpose: each step is a process start, and the steps build on each other.

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.fakes.fake_gemini import FakeGemini
from tests.integration.test_agent_flows import call, line
from tests.integration.test_custom_commands import run as run_agent


def run(fake: FakeGemini, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_agent(fake, project, "-y", *args, settings={"general": {"checkpointing": {"enabled": True}}})


def user_texts(fake: FakeGemini) -> list[str]:
    """The user's typed texts in the last generate request, as the model received them."""
    last = [r for r in fake.requests if r.action and "generate" in r.action.lower()][-1]
    return [p["text"] for c in last.body["contents"] if c["role"] == "user" for p in c["parts"] if "text" in p]


def test_rewind_from_the_command_line(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.txt").write_text("one\n")
    with FakeGemini() as fake:
        fake.push(
            line(call("replace", file_path="a.txt", old_string="one", new_string="uno")),
            line({"text": "first done"}),
            line(call("write_file", file_path="b.txt", content="agent's b\n")),
            line({"text": "second done"}),
        )
        assert run(fake, project, "-p", "first edit").returncode == 0
        assert run(fake, project, "-r", "latest", "-p", "second edit").returncode == 0
        assert (project / "a.txt").read_text() == "uno\n" and (project / "b.txt").exists()
        (project / "mine.txt").write_text("the user's own\n")
        printed = run(fake, project, "-r", "latest", "--rewind", "1")
        assert printed.returncode == 0, printed.stderr
        assert printed.stdout == "second edit\n"  # the message, to edit and send again
        assert "Removed (the agent created them): `b.txt`" in printed.stderr
        assert not (project / "b.txt").exists()
        assert (project / "a.txt").read_text() == "uno\n"
        assert (project / "mine.txt").read_text() == "the user's own\n"

        fake.push(line({"text": "again"}))
        assert run(fake, project, "-r", "latest", "-p", "second edit, better").returncode == 0
        assert user_texts(fake) == ["first edit", "second edit, better"]

        # /rewind lists the messages, and a file the user edited after the agent is reported, not overwritten.
        listing = run(fake, project, "-r", "latest", "-p", "/rewind")
        assert "- 0: first edit" in listing.stdout and "- 1: second edit, better" in listing.stdout
        (project / "a.txt").write_text("now mine\n")
        done = run(fake, project, "-r", "latest", "-p", "/rewind 0")
        assert "Not restored, you edited them since: `a.txt`" in done.stdout, done.stdout
        assert (project / "a.txt").read_text() == "now mine\n"
        fake.push(line({"text": "fresh"}))
        assert run(fake, project, "-r", "latest", "-p", "start over").returncode == 0
        assert user_texts(fake) == ["start over"]
