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
    assert failed.returncode == 401 % 256  # Gemini CLI exits with the API status in stream-json mode
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


OPENAI_SECRET = "sk-proj-test-secret-0123456789abcdef"


def test_openai_key_is_sent_but_never_logged(tmp_path: Path) -> None:
    """The same for an OpenAI-compatible endpoint whose key comes from a workspace .env, with debug logs on."""
    from tests.fakes.fake_openai import FakeOpenAI, text_turn

    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={OPENAI_SECRET}\n")
    refused = {"status": 401, "message": f"Incorrect API key provided: {OPENAI_SECRET}."}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "OPENAI"))}

    def agent(name: str, prompt: str) -> subprocess.CompletedProcess[str]:
        argv = ["run", "--debug", "--log-file", str(tmp_path / f"{name}.log"), "-o", "stream-json", prompt]
        return subprocess.run(
            [sys.executable, "-m", "agent_lsp", *argv],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )

    with FakeOpenAI([refused, text_turn("hi")], models=["coder"]) as fake:
        env.update({"OPENAI_BASE_URL": fake.url, "OPENAI_MODEL": "coder", "AGENT_LSP_TRUST_WORKSPACE": "true"})
        stats, failed, ok = agent("stats", "/stats"), agent("failed", "hello"), agent("ok", "hello again")
        sent = fake.chat_requests()
    assert stats.returncode == 0 and ok.returncode == 0, ok.stderr
    assert "OpenAI-compatible" in stats.stdout and "OPENAI_API_KEY" in stats.stdout  # where the key is from
    # Gemini CLI exits with the HTTP status in stream-json mode (the OS keeps its low byte).
    assert failed.returncode == 401 % 256 and "refused the key from OPENAI_API_KEY" in failed.stdout
    assert len(sent) == 2 and sent[0].api_key == OPENAI_SECRET  # it did reach the endpoint
    for result in (stats, failed, ok):
        assert OPENAI_SECRET not in result.stdout + result.stderr
    for log in ("stats.log", "failed.log", "ok.log"):
        assert OPENAI_SECRET not in (tmp_path / log).read_text()
