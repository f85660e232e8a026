"""Sign-in from any ACP client: ``initialize`` offers the terminal method to clients that can run it, ``agent-lsp
login`` (run as the client runs it, and as a script runs it) stores checked credentials, ``authenticate`` and a
prompt then succeed against the fake server with that key, and ``logout`` removes it. The key never shows in
any output or log."""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block

from tests.acp.editor import EditorClient, connect
from tests.acp.harness import RawClient, agent_argv
from tests.acp_schema import validate
from tests.fakes.fake_gemini import FakeGemini
from tests.fakes.fake_openai import FakeOpenAI, text_turn

KEY = "AIza-test-sign-in-key-7d1f"


def _gemini_answer(text: str) -> list[dict[str, Any]]:
    return [{"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}]}]


async def _run(argv: list[str], env: dict[str, str], stdin: str, cwd: Path) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=str(cwd),
    )
    out, err = await asyncio.wait_for(proc.communicate(stdin.encode()), 90)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


def _methods(editor: EditorClient) -> list[Any]:
    """The auth methods of the InitializeResponse the SDK parsed (a union type may wrap each one)."""
    return [getattr(m, "root", m) for m in editor.initialized.auth_methods]


def _login_argv(*more: str) -> list[str]:
    return [sys.executable, "-m", "agent_lsp", "login", *more]


async def test_initialize_offers_the_terminal_method_only_to_clients_that_can_run_it(
    project: Path, env: dict[str, str]
) -> None:
    editor = EditorClient(auth_terminal=True)
    async with connect(editor, agent_argv(None), env, project):
        pass
    editor.checker.assert_clean()  # the raw InitializeResponse was validated against the ACP schema
    methods = {m.id: m for m in _methods(editor)}
    raw = next(f["result"] for f in editor.checker.frames if "authMethods" in f.get("result", {}))
    terminal = next(m for m in raw["authMethods"] if m.get("type") == "terminal")
    assert terminal == {
        "id": "agent-lsp-login",
        "name": "Sign in from a terminal",
        "description": terminal["description"],
        "type": "terminal",
        "args": ["--login"],
    }
    assert set(methods) == {"gemini-api-key", "vertex-ai", "agent-lsp-login"}
    assert raw["agentCapabilities"]["auth"] == {"logout": {}}
    validate("AuthMethod", terminal)

    async with RawClient.spawn(agent_argv(None), env, project) as client:
        plain = await client.initialize({})
        legacy = await client.call(
            "initialize", {"protocolVersion": 1, "clientCapabilities": {"_meta": {"terminal-auth": True}}}
        )
    client.checker.assert_clean()
    assert [m["id"] for m in plain["authMethods"]] == ["gemini-api-key", "vertex-ai"]
    # The ACP Registry's check sends the older opt-in; it must see a method a user can complete.
    assert [m.get("type") for m in legacy["result"]["authMethods"]] == [None, None, "terminal"]


async def test_login_as_a_script_then_authenticate_prompt_and_logout(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    log_file = tmp_path / "agent.log"
    credentials = Path(env["AGENT_LSP_HOME"]) / "credentials.json"
    with FakeGemini() as fake:
        fake.models = [{"name": "models/gemini-2.5-flash", "supportedGenerationMethods": ["generateContent"]}]
        fake.api_keys = {KEY}
        fake.push(_gemini_answer("signed in and answering"))
        argv = agent_argv(None, "--debug", "--log-file", str(log_file))

        # Nobody signed in: authenticate says what to do.
        editor = EditorClient(auth_terminal=True)
        async with connect(editor, argv, env, project) as conn:
            with pytest.raises(RequestError) as no_key:
                await conn.authenticate(method_id="gemini-api-key")
            assert no_key.value.code == -32000 and "agent-lsp login" in str(no_key.value)
            with pytest.raises(RequestError) as no_login:
                await conn.authenticate(method_id="agent-lsp-login")
            assert no_login.value.code == -32000 and "agent-lsp login" in str(no_login.value)

        # A wrong key is refused by the server and nothing is stored.
        code, out, err = await _run(_login_argv("--base-url", fake.url), env, "not-the-key\n", project)
        assert code == 41 and "API key not valid" in err and not credentials.exists()
        # The right one: checked with one model-list request, stored in a file only the user can read.
        code, out, err = await _run(_login_argv("--base-url", fake.url), env, KEY + "\n", project)
        assert code == 0, err
        assert "Signed in: Gemini API key" in out and "1 model(s)" in err
        assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
        assert [p.name for p in credentials.parent.iterdir()] == ["credentials.json"]  # no temp file left

        editor = EditorClient(auth_terminal=True)
        async with connect(editor, argv, env, project) as conn:
            await conn.authenticate(method_id="agent-lsp-login")
            await conn.authenticate(method_id="gemini-api-key")
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("hello")])
        assert answer.stop_reason == "end_turn"
        editor.checker.assert_clean()
        updates = editor.updates(session.session_id)
        said = "".join(u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk")
        assert said == "signed in and answering"
        generation = fake.generation_requests()
        assert generation and all(r.api_key == KEY for r in generation)

        async with RawClient.spawn(argv, env, project) as client:
            await client.initialize({"auth": {"terminal": True}})
            assert await client.result("logout", {}) == {}
            assert not credentials.exists()
            denied = await client.call("session/new", {"cwd": str(project), "mcpServers": []})
            assert denied["error"]["code"] == -32000 and "agent-lsp login" in denied["error"]["message"]
        client.checker.assert_clean()

    logs = log_file.read_text(encoding="utf-8")
    assert "authenticated: the stored sign-in (Gemini API key" in logs  # debug logs were on ...
    for text in (logs, out, err, client.stderr):
        assert KEY not in text  # ... and the key is in none of them


@pytest.mark.skipif(sys.platform == "win32", reason="the terminal is a POSIX pty here")
async def test_terminal_auth_as_a_client_runs_it_in_a_pty(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    """The client runs the command that starts the agent with the method's args appended, in a terminal: the user
    picks an OpenAI-compatible endpoint, types the key (not echoed), and the only model served is taken."""
    import pty

    editor = EditorClient(auth_terminal=True)
    async with connect(editor, agent_argv(None), env, project):
        pass
    method = next(m for m in _methods(editor) if m.id == "agent-lsp-login")
    with FakeOpenAI(models=["coder"]) as fake:
        fake.api_keys = {KEY}
        fake.push(text_turn("hello from the endpoint"))
        primary, secondary = pty.openpty()
        proc = await asyncio.create_subprocess_exec(
            *agent_argv(None), *method.args, stdin=secondary, stdout=secondary, stderr=secondary, env=env, cwd=project
        )
        os.close(secondary)
        screen = await _converse(primary, [("Choose 1, 2 or 3", "3"), ("Endpoint URL", fake.url), ("API key", KEY)])
        assert await asyncio.wait_for(proc.wait(), 60) == 0, screen
        assert "Signed in: OpenAI-compatible endpoint" in screen and "model coder" in screen
        assert KEY not in screen  # typed with echo off

        editor = EditorClient()
        async with connect(editor, agent_argv(None), env, project) as conn:
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
        assert answer.stop_reason == "end_turn"
        assert fake.chat_requests()[-1].api_key == KEY and fake.chat_requests()[-1].body["model"] == "coder"
        assert fake.violations == []


async def _converse(fd: int, steps: list[tuple[str, str]]) -> str:
    """Answer each prompt as it appears on the terminal; returns everything the terminal showed."""
    loop = asyncio.get_running_loop()
    screen = ""
    pending = list(steps)

    def read() -> str:
        try:
            return os.read(fd, 4096).decode(errors="replace")
        except OSError:  # the child closed the terminal
            return ""

    while True:
        chunk = await asyncio.wait_for(loop.run_in_executor(None, read), 60)
        if not chunk:
            break
        screen += chunk
        if pending and pending[0][0] in screen.rsplit("\n", 1)[-1]:
            os.write(fd, (pending.pop(0)[1] + "\n").encode())
    os.close(fd)
    assert not pending, f"never asked {pending[0][0]!r}:\n{screen}"
    return screen
