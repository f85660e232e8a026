"""Rewind through the runtime with the replay model and real shadow-git checkpoints: two prompts that edit
files, a rewind to the second, the user's own edits kept, a conflict reported, undo, and a loaded session."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_lsp import events as ev
from agent_lsp.core.rewind import RewindError
from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup
from tests.integration.test_agent_flows import Recorder, call, line, open_session, send, write_script


@pytest.fixture
def project(project: Path) -> Path:
    """The shared empty project, with a typo to fix in app.py."""
    (project / "app.py").write_text("def greet():\n    return 'helo'\n")
    (project / "README.md").write_text("# app\n")
    return project


def two_edit_script() -> list[dict[str, object]]:
    return [
        line(call("replace", file_path="app.py", old_string="'helo'", new_string="'hello'")),
        line({"text": "fixed"}),
        line(call("write_file", file_path="notes/NEW.md", content="new\n")),
        line(call("replace", file_path="README.md", old_string="# app", new_string="# changed")),
        line({"text": "noted"}),
        line({"text": "after the rewind"}),
        line({"text": "more"}),
    ]


def user_texts(contents: object) -> list[str]:
    return [p.text for c in contents if c.role == "user" for p in c.parts if p.text]  # type: ignore[attr-defined]


async def test_rewind_restores_the_agents_files_only_and_cuts_the_conversation(tmp_path: Path, project: Path) -> None:
    handle = await open_session(
        tmp_path, project, two_edit_script(), Recorder(), approval_mode="yolo", checkpointing=True
    )
    session = handle.session
    await send(handle, "fix the typo")
    (project / "mine.txt").write_text("the user's own file\n")  # the user's edit between prompts
    await send(handle, "add notes and retitle")
    assert (project / "notes" / "NEW.md").exists()
    assert [t.text for t in session.rewinds.targets()] == ["fix the typo", "add notes and retitle"]

    plan = await session.rewinds.preview(1)
    assert (plan.restore, plan.delete, plan.conflicts) == (("README.md",), ("notes/NEW.md",), ())
    result = await session.rewinds.rewind(1)
    assert result.text == "add notes and retitle"
    assert (project / "README.md").read_text() == "# app\n"
    assert not (project / "notes").exists()
    assert "'hello'" in (project / "app.py").read_text()  # before the message: kept
    assert (project / "mine.txt").read_text() == "the user's own file\n"
    assert user_texts(session.history.contents()) == ["fix the typo"]
    assert [t.text for t in session.rewinds.targets()] == ["fix the typo"]

    # Undone: files and conversation come back.
    assert await session.rewinds.undo() == 1
    assert (project / "README.md").read_text() == "# changed\n"
    assert (project / "notes" / "NEW.md").read_text() == "new\n"
    assert user_texts(session.history.contents()) == ["fix the typo", "add notes and retitle"]

    # A file the user edited after the agent is a conflict, never overwritten.
    (project / "README.md").write_text("# mine now\n")
    result = await session.rewinds.rewind(1)
    assert result.files.conflicts == ("README.md",)
    assert (project / "README.md").read_text() == "# mine now\n"
    assert not (project / "notes").exists()

    # The next prompt sees the cut history and makes the rewind final.
    await send(handle, "edited text")
    assert user_texts(session.history.contents()) == ["fix the typo", "edited text"]
    with pytest.raises(RewindError):
        await session.rewinds.undo()
    session_id = session.id
    await handle.aclose()

    # Loaded again: the recording shows the cut, and the first message can still be rewound (its files too).
    options = RuntimeOptions(fake_responses=write_script(tmp_path, [line({"text": "x"})]), checkpointing=True)
    loaded, events = await Runtime(options).load_session(session_id, SessionSetup(cwd=project, confirmer=Recorder()))
    prompts = [e.text for e in events if isinstance(e, ev.UserMessage)]
    assert prompts == ["fix the typo", "edited text"]
    assert user_texts(loaded.session.history.contents()) == ["fix the typo", "edited text"]
    result = await loaded.session.rewinds.rewind(0)
    assert result.files.restore == ("app.py",)
    assert "'helo'" in (project / "app.py").read_text()
    assert loaded.session.history.contents() == ()
    await loaded.aclose()


async def test_revert_turn_undoes_one_turns_files_only(tmp_path: Path, project: Path) -> None:
    handle = await open_session(
        tmp_path, project, two_edit_script(), Recorder(), approval_mode="yolo", checkpointing=True
    )
    session = handle.session
    await send(handle, "fix the typo")
    await send(handle, "add notes and retitle")
    plan = await session.rewinds.revert_turn(0)
    assert (plan.restore, plan.delete, plan.conflicts) == (("app.py",), (), ())
    assert "'helo'" in (project / "app.py").read_text()
    assert (project / "README.md").read_text() == "# changed\n"  # the later turn's change stays
    assert user_texts(session.history.contents()) == ["fix the typo", "add notes and retitle"]
    await handle.aclose()


async def test_rewind_without_checkpoints_cuts_only_the_conversation(tmp_path: Path, project: Path) -> None:
    handle = await open_session(tmp_path, project, two_edit_script(), Recorder(), approval_mode="yolo")
    await send(handle, "fix the typo")
    result = await handle.session.rewinds.rewind(0)
    assert not result.files_available
    assert "'hello'" in (project / "app.py").read_text()
    assert handle.session.history.contents() == ()
    with pytest.raises(RewindError, match="no user message 3"):
        await handle.session.rewinds.rewind(3)
    await handle.aclose()
