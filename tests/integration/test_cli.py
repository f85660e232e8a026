"""The headless command line as a user runs it: real subprocesses, the replay model, a temp project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def run_cli(
    *args: str, cwd: Path, env_extra: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE"))}
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "agent_lsp", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def script(path: Path, *responses: list[dict[str, object]]) -> Path:
    lines = []
    for parts in responses:
        lines.append(
            json.dumps(
                {
                    "method": "generateContentStream",
                    "response": [
                        {
                            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
                            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12},
                        }
                    ],
                }
            )
        )
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    return root


def test_missing_key_is_one_clear_line(project: Path) -> None:
    result = run_cli("run", "hello", cwd=project)
    assert result.returncode == 41  # Gemini CLI's FatalAuthenticationError
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "GEMINI_API_KEY" in lines[0] and "--fake-responses" in lines[0]
    assert result.stdout == ""


def test_run_streams_text_to_stdout(project: Path, tmp_path: Path) -> None:
    f = script(tmp_path / "s.jsonl", [{"text": "Hello from the replay."}])
    result = run_cli("run", "--fake-responses", str(f), "hi", cwd=project)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Hello from the replay."


def test_stream_json_and_json_formats(project: Path, tmp_path: Path) -> None:
    f = script(
        tmp_path / "s.jsonl",
        [{"functionCall": {"name": "read_file", "args": {"file_path": "a.txt"}}}],
        [{"text": "It says one."}],
    )
    result = run_cli("run", "-o", "stream-json", "--fake-responses", str(f), "read a.txt", cwd=project)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert kinds == ["init", "message", "tool_use", "tool_result", "message", "result"]
    assert all(e["timestamp"].endswith("Z") for e in events)
    assert events[3]["status"] == "success" and events[-1]["status"] == "success"
    f2 = script(tmp_path / "s2.jsonl", [{"text": "Answer."}])
    result = run_cli("run", "-o", "json", "--fake-responses", str(f2), "q", cwd=project)
    payload = json.loads(result.stdout)
    assert payload["response"] == "Answer." and "error" not in payload
    assert set(payload["stats"]) == {"models", "tools", "files"}


def test_default_mode_without_a_terminal_answers_the_model(project: Path, tmp_path: Path) -> None:
    f = script(
        tmp_path / "s.jsonl",
        [{"functionCall": {"name": "write_file", "args": {"file_path": "b.txt", "content": "new\n"}}}],
        [{"text": "I could not write it."}],
    )
    result = run_cli("run", "--fake-responses", str(f), "write b", cwd=project)
    assert result.returncode == 0, result.stderr
    assert not (project / "b.txt").exists()
    assert result.stdout.strip() == "I could not write it."
    f = script(
        tmp_path / "s2.jsonl",
        [{"functionCall": {"name": "write_file", "args": {"file_path": "b.txt", "content": "new\n"}}}],
        [{"text": "Wrote it."}],
    )
    result = run_cli(
        "run",
        "--approval-mode",
        "auto_edit",
        "--fake-responses",
        str(f),
        "write b",
        cwd=project,
        env_extra={"AGENT_LSP_TRUST_WORKSPACE": "true"},
    )
    assert result.returncode == 0, result.stderr
    assert (project / "b.txt").read_text() == "new\n"


def test_an_unknown_approval_mode_names_the_choices(project: Path) -> None:
    for args in (("run", "--approval-mode", "always", "hi"), ("--approval-mode", "always", "-p", "hi")):
        result = run_cli(*args, cwd=project)
        assert result.returncode == 2 and result.stdout == ""
        assert "--approval-mode must be one of default, auto_edit, yolo, plan (got 'always')" in result.stderr
    shown = run_cli("acp", "--help", cwd=project)
    assert "when tools may run: default, auto_edit, yolo, plan" in " ".join(shown.stdout.split())


def test_demo_fixes_the_bug(tmp_path: Path) -> None:
    result = run_cli("demo", cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for expected in (
        "list_directory",
        "read_file",
        "replace",
        "run_shell_command",
        "all 3 checks passed",
        "Plan:",
        "stats.py was changed by the agent",
    ):
        assert expected in out, expected


def test_a_key_in_the_trusted_folders_env_is_enough(project: Path) -> None:
    """As in Gemini CLI: the folder's .env is read (the folder is trusted) before credentials are checked."""
    from tests.fakes.fake_gemini import FakeGemini
    from tests.replay_lines import text_line

    (project / ".env").write_text("GEMINI_API_KEY=k-from-the-folder\n")
    with FakeGemini() as fake:
        fake.push(text_line("hello from the folder's key"))
        env = {"GOOGLE_GEMINI_BASE_URL": fake.url, "AGENT_LSP_TRUST_WORKSPACE": "true"}
        result = run_cli("run", "hi", cwd=project, env_extra=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "hello from the folder's key"
