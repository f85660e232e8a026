"""What one session leaves behind and what it shares: scratch folders go with the session (and with the
process), and a key read from one workspace's ``.env`` never serves a session of another workspace."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.core.truncation import truncate_for_model
from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup
from tests.fakes.fake_gemini import FakeGemini
from tests.integration.test_gemini_session import chunk


def _workspace(root: Path, key: str) -> Path:
    root.mkdir(parents=True)
    (root / ".env").write_text(f"GEMINI_API_KEY={key}\n", encoding="utf-8")
    return root


async def test_each_workspace_uses_its_own_env_key(tmp_path: Path, _private_home: Path) -> None:
    alpha = _workspace(tmp_path / "alpha", "key-from-alpha")
    beta = _workspace(tmp_path / "beta", "key-from-beta")
    plain = tmp_path / "plain"  # no .env: the process environment has no key either
    plain.mkdir()
    with FakeGemini() as fake:
        env = {**os.environ, "GOOGLE_GEMINI_BASE_URL": fake.url, "AGENT_LSP_TRUST_WORKSPACE": "true"}
        env.pop("GEMINI_API_KEY", None)
        runtime = Runtime(RuntimeOptions(env=env))
        for root in (alpha, beta, alpha):
            fake.push([chunk({"text": f"hello {root.name}"}, finish="STOP")])
            handle = await runtime.create_session(SessionSetup(cwd=root, confirmer=AutoConfirmer(), record=False))
            events = [e async for e in handle.session.send("hi")]
            assert any(getattr(e, "reason", None) == "end_turn" for e in events), events
            await handle.aclose()
        keys = [r.api_key for r in fake.generation_requests()]
        assert keys == ["key-from-alpha", "key-from-beta", "key-from-alpha"]
        # Without a key of its own a workspace gets none: the error names what to set.
        try:
            await runtime.create_session(SessionSetup(cwd=plain, confirmer=AutoConfirmer(), record=False))
        except Exception as exc:
            assert "GEMINI_API_KEY" in str(exc) and "key-from" not in str(exc)
        else:
            raise AssertionError("a workspace without a key was served another workspace's key")


async def test_session_scratch_folder_is_removed_on_close(tmp_path: Path, _private_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    script = tmp_path / "none.jsonl"
    script.write_text("")
    runtime = Runtime(RuntimeOptions(fake_responses=script, env={**os.environ, "AGENT_LSP_TRUST_WORKSPACE": "true"}))
    handle = await runtime.create_session(SessionSetup(cwd=project, confirmer=AutoConfirmer(), record=False))
    assert handle.temp_dir is not None and handle.temp_dir.is_dir()
    _text, saved = truncate_for_model(
        "x\n" * 5000, threshold=100, temp_dir=handle.temp_dir, call_id="c1", tool_name="t"
    )
    assert saved is not None and saved.exists()
    await handle.aclose()
    assert not handle.temp_dir.exists()


def test_scratch_folders_of_open_sessions_are_removed_at_exit(tmp_path: Path, _private_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "none.jsonl").write_text("")
    program = textwrap.dedent(
        f"""
        import asyncio, os
        from pathlib import Path
        from agent_lsp.core.ports import AutoConfirmer
        from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup

        async def main():
            runtime = Runtime(RuntimeOptions(fake_responses=Path({str(tmp_path / "none.jsonl")!r})))
            handle = await runtime.create_session(SessionSetup(cwd=Path({str(project)!r}), confirmer=AutoConfirmer()))
            (handle.temp_dir / "out.txt").write_text("kept until exit")
            print(handle.temp_dir, flush=True)  # never closed: the process just ends

        asyncio.run(main())
        """
    )
    env = {**os.environ, "AGENT_LSP_TRUST_WORKSPACE": "true"}
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    temp_dir = Path(done.stdout.strip())
    assert temp_dir.name.startswith("agent-lsp-") and not temp_dir.exists()
