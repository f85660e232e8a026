"""The runtime assembles a session once: the parts it hands the session are the handle's, the session id is chosen
first (hooks, recording and session agree), /memory works on the same holder, and a failed build leaves nothing."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import pytest

from agent_lsp import events as ev
from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.core.session import Session
from agent_lsp.errors import AuthError
from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup
from tests.replay_lines import text_line


def runtime(tmp_path: Path, *lines: dict[str, object]) -> Runtime:
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in lines))
    env = {**os.environ, "AGENT_LSP_TRUST_WORKSPACE": "true"}
    return Runtime(RuntimeOptions(fake_responses=script, env=env))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


async def say(session: Session, prompt: str) -> list[ev.AgentEvent]:
    return [e async for e in session.send(prompt)]


def text(events: list[ev.AgentEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, ev.Content))


async def test_the_session_is_given_the_handles_parts(tmp_path: Path, project: Path) -> None:
    handle = await runtime(tmp_path).create_session(SessionSetup(cwd=project, confirmer=AutoConfirmer(), record=False))
    try:
        assert handle.commands is not None and handle.session.deps.commands is handle.commands
        assert handle.external is not None and handle.mcp is None
        assert handle.session.deps.before_model is None  # nothing to wait for without MCP servers
        assert handle.session.deps.roots == tuple(handle.workspace.roots)
        assert [spec.name for spec in handle.command_specs()][:2] == ["help", "compress"]
    finally:
        await handle.aclose()


async def test_memory_commands_share_one_holder_with_the_system_prompt(tmp_path: Path, project: Path) -> None:
    (project / "GEMINI.md").write_text("The build uses make.\n")
    handle = await runtime(tmp_path).create_session(SessionSetup(cwd=project, confirmer=AutoConfirmer(), record=False))
    try:
        assert "The build uses make." in handle.session.deps.system_prompt()
        (project / "GEMINI.md").write_text("The build uses ninja.\n")
        assert "Reloaded memory from 1 file(s)" in text(await say(handle.session, "/memory reload"))
        assert "ninja" in handle.session.deps.system_prompt() and "make." not in handle.session.deps.system_prompt()
        added = text(await say(handle.session, "/memory add the tests run with pytest"))
        assert added  # the tool says where it saved the fact
        assert "the tests run with pytest" in handle.session.deps.system_prompt()  # reloaded after saving
        shown = text(await say(handle.session, "/memory show"))
        assert str(project / "GEMINI.md") in shown
    finally:
        await handle.aclose()


async def test_hooks_recording_and_session_share_the_id_chosen_first(
    tmp_path: Path, project: Path, _private_home: Path
) -> None:
    seen = tmp_path / "seen.json"
    hook = tmp_path / "hook.py"
    hook.write_text(f"import json, sys\nopen({str(seen)!r}, 'w').write(json.dumps(json.load(sys.stdin)))\n")
    hooks = {"SessionStart": [{"hooks": [{"type": "command", "command": f"{sys.executable} {hook}"}]}]}
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    handle = await runtime(tmp_path).create_session(SessionSetup(cwd=project, confirmer=AutoConfirmer()))
    try:
        fired = json.loads(seen.read_text())
        assert handle.recorder is not None
        assert fired["session_id"] == handle.session.id == handle.recorder.session_id
        assert fired["transcript_path"] == str(handle.recorder.path)
    finally:
        await handle.aclose()


async def test_loading_a_session_leaves_the_callers_setup_alone(tmp_path: Path, project: Path) -> None:
    rt = runtime(tmp_path, text_line("hello"))
    first = await rt.create_session(SessionSetup(cwd=project, confirmer=AutoConfirmer()))
    await say(first.session, "hi")
    await first.aclose()
    setup = SessionSetup(cwd=project, confirmer=AutoConfirmer())
    loaded, events = await rt.load_session(first.session.id, setup)
    try:
        assert loaded.session.id == first.session.id and len(loaded.session.history.contents()) == 2
        assert any(isinstance(e, ev.Content) and e.text == "hello" for e in events)
        assert setup.session_id is None and setup.history == ()  # reusable for another session
    finally:
        await loaded.aclose()


async def test_a_session_that_cannot_be_built_leaves_no_scratch_folder(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "OPENAI"))}
    with pytest.raises(AuthError):
        await Runtime(RuntimeOptions(env=env)).create_session(
            SessionSetup(cwd=project, confirmer=AutoConfirmer(), record=False)
        )
    assert list(scratch.iterdir()) == []
