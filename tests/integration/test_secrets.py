"""API keys never reach logs or output, in success and in failure, even with debug logging on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.fakes.fake_gemini import FakeGemini

SECRET = "AIzaSy-test-secret-0123456789abcdef"


def run(fake: FakeGemini, cwd: Path, log: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE"))}
    env.update({"GEMINI_API_KEY": SECRET, "GOOGLE_GEMINI_BASE_URL": fake.url, "AGENT_LSP_TRUST_WORKSPACE": "true"})
    return subprocess.run(
        [sys.executable, "-m", "agent_lsp", "run", "--debug", "--log-file", str(log), "-o", "stream-json", "hello"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_key_is_sent_but_never_logged(tmp_path: Path) -> None:
    chunk = {"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP"}]}
    with FakeGemini([[chunk], {"status": 401, "message": "API key not valid. Please pass a valid API key."}]) as fake:
        ok = run(fake, tmp_path, tmp_path / "ok.log")
        failed = run(fake, tmp_path, tmp_path / "failed.log")
        assert fake.requests[0].api_key == SECRET  # it did reach the model API
    assert ok.returncode == 0, ok.stderr
    assert failed.returncode == 1
    assert "API key not valid" in failed.stdout
    for text in (
        ok.stdout,
        ok.stderr,
        failed.stdout,
        failed.stderr,
        (tmp_path / "ok.log").read_text(),
        (tmp_path / "failed.log").read_text(),
    ):
        assert SECRET not in text
    state = Path(os.environ["AGENT_LSP_HOME"])
    for path in state.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path
