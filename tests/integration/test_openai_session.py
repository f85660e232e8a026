"""Whole sessions on an OpenAI-compatible endpoint: the runtime, the real ``openai`` SDK and the strict fake server,
in process and through the headless command line (approvals answered on a real terminal)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_lsp import events as ev
from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.core.retry import RetryPolicy
from agent_lsp.errors import AuthError
from agent_lsp.model.provider import resolve_provider
from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup
from tests.fakes.fake_gemini import FakeGemini
from tests.fakes.fake_openai import FakeOpenAI, text_turn, tool_turn


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(models=["coder", "small"]) as server:
        yield server


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("def greet(name):\n    return 'Hello ' + name\n")
    monkeypatch.setenv("AGENT_LSP_TRUST_WORKSPACE", "true")
    return root


def openai_env(fake: FakeOpenAI, **extra: str) -> dict[str, str]:
    return {**os.environ, "OPENAI_BASE_URL": fake.url, "OPENAI_MODEL": "coder", "OPENAI_API_KEY": "sk-x1", **extra}


async def open_session(env: dict[str, str], project: Path, **setup: Any) -> Any:
    fast = RetryPolicy(initial_delay_s=0.01, max_delay_s=0.02)
    handle = await Runtime(RuntimeOptions(env=env, retry=fast)).create_session(
        SessionSetup(cwd=project, confirmer=AutoConfirmer(), record=False, **setup)
    )
    return handle


async def send(handle: Any, prompt: str) -> list[ev.AgentEvent]:
    return [e async for e in handle.session.send(prompt)]


SESSION = [
    tool_turn(("read_file", {"file_path": "app.py"}), text="Reading it."),
    tool_turn(("replace", {"file_path": "app.py", "old_string": "'Hello '", "new_string": "'Hi '"})),
    tool_turn(("run_shell_command", {"command": "python3 -c \"print('ran ok')\"", "description": "check"})),
    text_turn("Changed ", "the greeting and ran it.", reasoning=["**Checking** the output"]),
]


async def test_multi_step_session_reads_edits_runs_and_answers(fake: FakeOpenAI, project: Path) -> None:
    fake.push({"status": 429, "retry_after": 0}, *SESSION[:2], {"chunks": SESSION[2], "cut_after": 2}, *SESSION[2:])
    handle = await open_session(openai_env(fake), project)
    events = await send(handle, "say hi instead of hello")
    await handle.aclose()
    assert fake.violations == []
    assert isinstance(events[-1], ev.Stop) and events[-1].reason == "end_turn", events[-1]
    responses = [e for e in events if isinstance(e, ev.ToolCallResponse)]
    assert [(r.name, r.status) for r in responses] == [
        ("read_file", "success"),
        ("replace", "success"),
        ("run_shell_command", "success"),
    ]
    assert (project / "app.py").read_text().count("'Hi '") == 1
    assert any(isinstance(e, ev.Thought) and e.subject == "Checking" for e in events)
    assert sum(isinstance(e, ev.Retry) for e in events) == 2  # the 429, then the cut stream
    last = fake.chat_requests()[-1].body["messages"]
    tool_messages = [m for m in last if m["role"] == "tool"]
    assert len(tool_messages) == 3 and "ran ok" in tool_messages[-1]["content"]
    assert [c["function"]["name"] for m in last if m["role"] == "assistant" for c in m.get("tool_calls", [])] == [
        "read_file",
        "replace",
        "run_shell_command",
    ]
    names = {t["function"]["name"] for t in fake.chat_requests()[-1].body["tools"]}
    assert "google_web_search" not in names and {"read_file", "replace", "web_fetch"} <= names
    assert handle.session.usage.prompt_tokens == 160


async def test_compression_summary_goes_to_the_same_provider(fake: FakeOpenAI, project: Path) -> None:
    fake.push(text_turn("first answer", prompt_tokens=900), text_turn("<state_snapshot>old</state_snapshot>"))
    fake.push(text_turn("second answer"))
    settings = project / ".gemini"
    settings.mkdir()
    (settings / "settings.json").write_text(json.dumps({"model": {"models": {"coder": {"contextWindow": 1000}}}}))
    handle = await open_session(openai_env(fake), project)
    assert handle.session.context_window == 1000
    await send(handle, "one " * 50)
    events = await send(handle, "two")
    await handle.aclose()
    assert any(isinstance(e, ev.ChatCompressed) for e in events)
    summary_call = fake.chat_requests()[1].body
    assert summary_call.get("stream") is None and summary_call["model"] == "coder"
    assert fake.violations == []


async def test_stats_and_picker_show_the_provider_and_endpoint_models(fake: FakeOpenAI, project: Path) -> None:
    handle = await open_session(openai_env(fake), project)
    events = await send(handle, "/stats")
    text = "".join(e.text for e in events if isinstance(e, ev.Content))
    assert "Model: coder" in text and "OpenAI-compatible" in text and fake.url in text and "OPENAI_BASE_URL" in text
    assert "sk-x1" not in text
    assert await handle.model_choices() == [("coder", "coder"), ("small", "small")]
    await handle.aclose()


async def test_switching_model_and_provider_keeps_the_conversation(fake: FakeOpenAI, project: Path) -> None:
    with FakeGemini() as gemini:
        env = openai_env(fake, GEMINI_API_KEY="g-key", GOOGLE_GEMINI_BASE_URL=gemini.url)
        fake.push(tool_turn(("read_file", {"file_path": "app.py"})), text_turn("It greets."), text_turn("Small."))
        gemini.push(
            [
                {
                    "candidates": [
                        {"content": {"role": "model", "parts": [{"text": "From Gemini."}]}, "finishReason": "STOP"}
                    ]
                }
            ]
        )
        handle = await open_session(env, project)
        choices = dict(await handle.model_choices())
        assert "gemini:gemini-2.5-flash" in choices and "coder" in choices
        # With a Gemini key too, google_web_search stays offered (it searches through Gemini).
        assert handle.session.registry.get("google_web_search") is not None
        await send(handle, "what does app.py do?")
        handle.set_model("small")
        await send(handle, "shorter")
        handle.set_model("gemini:gemini-2.5-flash")
        events = await send(handle, "and Gemini?")
        await handle.aclose()
        assert "From Gemini." in "".join(e.text for e in events if isinstance(e, ev.Content))
        assert fake.chat_requests()[-1].body["model"] == "small"
        contents = gemini.generation_requests()[-1].body["contents"]
        texts = [p.get("text") for c in contents for p in c["parts"]]
        assert texts[0] == "what does app.py do?" and "It greets." in texts and "and Gemini?" in texts
        call = next(p["functionCall"] for c in contents for p in c["parts"] if "functionCall" in p)
        assert call["name"] == "read_file"
        assert handle.session.model == "gemini-2.5-flash"
        assert fake.violations == []


async def test_missing_model_and_unknown_provider_prefix_are_clear(fake: FakeOpenAI, project: Path) -> None:
    with pytest.raises(AuthError, match="OPENAI_MODEL"):
        resolve_provider(None, {"OPENAI_BASE_URL": fake.url})
    with pytest.raises(AuthError, match="OPENAI_API_KEY"):
        resolve_provider(None, {"OPENAI_MODEL": "gpt-4.1"})
    handle = await open_session(openai_env(fake), project)
    with pytest.raises(ValueError, match="Gemini provider is not configured"):
        handle.set_model("gemini:gemini-2.5-pro")
    await handle.aclose()


def test_settings_decide_when_both_have_credentials(tmp_path: Path) -> None:
    from agent_lsp.config.settings import ModelSettings

    env = {"GEMINI_API_KEY": "g", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "OPENAI_MODEL": "coder"}
    assert resolve_provider(None, env).provider == "openai"
    chosen = resolve_provider(ModelSettings(provider="gemini"), env)
    assert (chosen.provider, chosen.reason) == ("gemini", "settings model.provider")
    assert resolve_provider(None, {"GEMINI_API_KEY": "g", "OPENAI_API_KEY": "sk"}).provider == "gemini"
    own = ModelSettings.model_validate(
        {"provider": "openai", "baseUrl": "http://h/v1", "apiKeyEnv": "MY_KEY", "name": "qwen3-coder"}
    )
    chosen = resolve_provider(own, {"MY_KEY": "secret", "OPENAI_MODEL": "other"})
    assert chosen.model == "qwen3-coder" and chosen.openai is not None
    assert chosen.openai.base_url == "http://h/v1" and chosen.openai.key_env == "MY_KEY"
    assert "secret" not in repr(chosen)
    with pytest.raises(ValueError):
        ModelSettings.model_validate({"apiKeyEnv": "sk-the-key-itself!"})


def test_headless_run_with_approvals_on_a_terminal(fake: FakeOpenAI, project: Path, tmp_path: Path) -> None:
    """``agent-lsp run`` against the fake: the edit and the command are approved by typing y on a terminal."""
    fake.push(*SESSION)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE"))}
    env.update(OPENAI_BASE_URL=fake.url, OPENAI_MODEL="coder")
    master, slave = pty.openpty()
    os.write(master, b"y\ny\n")
    try:
        result = subprocess.run(
            [sys.executable, "-m", "agent_lsp", "run", "say hi instead of hello"],
            cwd=project,
            env=env,
            stdin=slave,
            capture_output=True,
            text=True,
            timeout=90,
        )
    finally:
        os.close(slave)
        os.close(master)
    assert result.returncode == 0, result.stderr
    assert "Changed the greeting and ran it." in result.stdout
    assert "Allow replace" in result.stdout and "Allow run_shell_command" in result.stdout
    assert (project / "app.py").read_text().count("'Hi '") == 1
    assert fake.violations == [] and fake.remaining == 0


async def test_each_workspace_gets_the_provider_its_settings_choose(fake: FakeOpenAI, tmp_path: Path) -> None:
    with FakeGemini() as gemini:
        env = openai_env(
            fake, GEMINI_API_KEY="g-key", GOOGLE_GEMINI_BASE_URL=gemini.url, AGENT_LSP_TRUST_WORKSPACE="true"
        )
        runtime = Runtime(RuntimeOptions(env=env))
        handles = []
        for name, provider in (("a", "gemini"), ("b", None)):
            root = tmp_path / name
            (root / ".gemini").mkdir(parents=True)
            if provider:
                (root / ".gemini" / "settings.json").write_text(json.dumps({"model": {"provider": provider}}))
            handles.append(
                await runtime.create_session(SessionSetup(cwd=root, confirmer=AutoConfirmer(), record=False))
            )
        assert [h.provider for h in handles] == ["gemini", "openai"]
        assert [getattr(h.session.client, "provider", "gemini") for h in handles] == ["gemini", "openai"]
        for handle in handles:
            await handle.aclose()
