"""Opening a session in two steps: the preview an editor is answered with is known before the tools, memory, hooks
and recording exist, and it says exactly what the built session then is (mode, model, provider, window, id)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import pytest

from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.errors import AuthError
from agent_lsp.runtime import Runtime, RuntimeOptions, SessionPreview, SessionSetup
from tests.fakes.fake_openai import FakeOpenAI


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def hold_session_start(home: Path, gate: Path) -> None:
    """A user-level SessionStart hook that runs until ``gate`` exists: the second step cannot finish before."""
    hook = home / "hold.py"
    started = gate.with_name("started")
    hook.write_text(
        f"import os, time\nopen({str(started)!r}, 'w').close()\n"
        f"while not os.path.exists({str(gate)!r}):\n    time.sleep(0.01)\n"
    )
    hooks = {"SessionStart": [{"hooks": [{"type": "command", "command": f"{sys.executable} {hook}"}]}]}
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({"hooks": hooks}))


def wait_for_file(path: Path) -> None:
    deadline = time.monotonic() + 30
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.01)


async def test_the_preview_comes_before_the_build_and_matches_the_built_session(
    tmp_path: Path, project: Path, _private_home: Path
) -> None:
    gate = tmp_path / "go"
    hold_session_start(_private_home, gate)
    script = tmp_path / "none.jsonl"
    script.write_text("")
    env = {**os.environ, "AGENT_LSP_TRUST_WORKSPACE": "true"}
    rt = Runtime(RuntimeOptions(fake_responses=script, env=env))
    setup = SessionSetup(cwd=project, confirmer=AutoConfirmer(), approval_mode="auto_edit")
    # Would time out if opening waited for the build: the hook holds the build until the gate exists.
    opening = await asyncio.wait_for(rt.open_session(setup), 30)
    await asyncio.to_thread(wait_for_file, tmp_path / "started")
    assert opening.ready is None  # the start hook is still running: the session is described, not built
    assert (opening.preview.mode, opening.preview.provider) == ("auto_edit", "replay")
    gate.touch()
    handle = await opening.handle()
    try:
        assert opening.ready is handle
        assert SessionPreview.of(handle) == opening.preview
    finally:
        await handle.aclose()


async def test_an_untrusted_folder_is_previewed_in_default_mode_and_told_once(project: Path) -> None:
    env = {**os.environ, "AGENT_LSP_TRUST_WORKSPACE": "false"}
    rt = Runtime(RuntimeOptions(fake_responses=project / "none.jsonl", env=env))
    (project / "none.jsonl").write_text("")
    opening = await rt.open_session(SessionSetup(cwd=project, confirmer=AutoConfirmer(), approval_mode="yolo"))
    handle = await opening.handle()
    try:
        assert opening.preview.mode == handle.session.policy.mode == "default"
        refused = [n.message for n in handle.notices if n.message.startswith("Approval mode")]
        assert refused == [
            "Approval mode yolo refused: this folder is not trusted, so tools cannot be auto-approved; "
            "trust it to use yolo"
        ]
    finally:
        await handle.aclose()


async def test_an_endpoint_session_is_previewed_with_its_provider_model_and_window(project: Path) -> None:
    with FakeOpenAI(models=["coder"]) as fake:
        env = {
            **os.environ,
            "AGENT_LSP_TRUST_WORKSPACE": "true",
            "OPENAI_BASE_URL": fake.url,
            "OPENAI_MODEL": "coder",
            "OPENAI_API_KEY": "sk-x1",
        }
        opening = await Runtime(RuntimeOptions(env=env)).open_session(
            SessionSetup(cwd=project, confirmer=AutoConfirmer())
        )
        handle = await opening.handle()
        try:
            preview = opening.preview
            assert (preview.provider, preview.model, preview.lists_models) == ("openai", "coder", True)
            assert SessionPreview.of(handle) == preview
            assert fake.requests == []  # describing the session asked the endpoint nothing
        finally:
            await handle.aclose()


async def test_missing_credentials_stop_the_first_step(project: Path) -> None:
    settings = {"model": {"provider": "openai"}}
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text(json.dumps(settings))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "GEMINI", "GOOGLE"))}
    rt = Runtime(RuntimeOptions(env={**env, "AGENT_LSP_TRUST_WORKSPACE": "true"}))
    with pytest.raises(AuthError):
        await rt.open_session(SessionSetup(cwd=project, confirmer=AutoConfirmer()))


async def test_a_build_that_fails_is_raised_to_whoever_waits_and_leaves_no_scratch_folder(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    state.write_text("a file where the state folder should be")  # the recording cannot be made
    monkeypatch.setenv("AGENT_LSP_HOME", str(state))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    (project / "none.jsonl").write_text("")
    env = {**os.environ, "AGENT_LSP_TRUST_WORKSPACE": "true"}
    opening = await Runtime(RuntimeOptions(fake_responses=project / "none.jsonl", env=env)).open_session(
        SessionSetup(cwd=project, confirmer=AutoConfirmer())
    )
    assert opening.preview.provider == "replay"  # described: the failure is in the second step
    with pytest.raises(NotADirectoryError):
        await opening.handle()
    with pytest.raises(NotADirectoryError):
        await opening.handle()  # every waiter hears it, not only the first
    assert opening.ready is None
    assert list(scratch.iterdir()) == []
