"""MCP prompts as slash commands: arguments as Gemini CLI takes them, and server-everything's prompts sent to the
model from the headless command line (real google-genai client against the fake Gemini server) and offered in an
ACP editor's menu (real ACP SDK client)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import text_block

from agent_lsp import events as ev
from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.mcp.prompt_commands import MissingArguments, parse_prompt_args
from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup
from tests.acp.editor import EditorClient, connect
from tests.acp.harness import agent_argv, agent_env, text_turn, write_script
from tests.fakes.fake_gemini import FakeGemini

from .third_party_servers import NODE_BIN, installed

CITY_STATE = [("city", True), ("state", False)]


def test_arguments_by_name_and_by_position() -> None:
    assert parse_prompt_args("--city=Lyon", CITY_STATE) == {"city": "Lyon"}
    assert parse_prompt_args('--city="Le Puy" --state=Auvergne', CITY_STATE) == {"city": "Le Puy", "state": "Auvergne"}
    assert parse_prompt_args('--city="say \\"hi\\""', CITY_STATE) == {"city": 'say "hi"'}
    # One required argument left: every remaining word fills it.
    assert parse_prompt_args("Saint Etienne --state=Loire", CITY_STATE) == {"city": "Saint Etienne", "state": "Loire"}
    two = [("a", True), ("b", True)]
    assert parse_prompt_args('x "y z"', two) == {"a": "x", "b": "y z"}
    assert parse_prompt_args("x --a=1", two) == {"a": "1", "b": "x"}
    with pytest.raises(MissingArguments, match="Missing required argument\\(s\\): --b"):
        parse_prompt_args("x", two)
    assert parse_prompt_args("", CITY_STATE) == {"city": ""}  # as Gemini CLI: one missing one takes ""


def _settings(home: Path) -> None:
    server = {"command": installed(NODE_BIN / "mcp-server-everything"), "args": ["stdio"]}
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": {"everything": server}}))


def _answer(text: str) -> list[dict[str, Any]]:
    return [{"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}]}]


def _texts(request: Any) -> list[str]:
    return [p.get("text", "") for p in request.body["contents"][-1]["parts"]]


def test_headless_sends_a_servers_prompt(tmp_path: Path, _private_home: Path) -> None:
    """``agent-lsp -p "/args-prompt --city=Lyon"``: the rendered prompt is what the model receives."""
    project = tmp_path / "project"
    project.mkdir()
    _settings(_private_home)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_LSP_TRUST")}
    with FakeGemini([_answer("Sunny.")]) as fake:
        env.update(AGENT_LSP_TRUST_WORKSPACE="true", GEMINI_API_KEY="test-key-not-real")
        env["GOOGLE_GEMINI_BASE_URL"] = fake.url
        done = subprocess.run(
            [sys.executable, "-m", "agent_lsp", "-p", "/args-prompt --city=Lyon"],
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
        [request] = fake.generation_requests()
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Sunny."
    assert _texts(request) == ["What's weather in Lyon?"]


async def test_prompts_mentions_and_listing_in_one_session(tmp_path: Path, _private_home: Path) -> None:
    """One session with server-everything (real google-genai client, fake Gemini server): prompt commands by
    position, help, /mcp, and resources mentioned in a prompt."""
    project = tmp_path / "project"
    project.mkdir()
    _settings(_private_home)
    uri = "demo://resource/static/document/architecture.md"
    doc = NODE_BIN.parent / "@modelcontextprotocol" / "server-everything" / "dist" / "docs" / "architecture.md"
    with FakeGemini([_answer("Hello."), _answer("Rainy."), _answer("Read it."), _answer("Got it.")]) as fake:
        env = {**os.environ, "GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}
        runtime = Runtime(RuntimeOptions(env=env))
        handle = await runtime.create_session(
            SessionSetup(cwd=project, confirmer=AutoConfirmer(), record=False, editor_trust=True)
        )
        shown: list[str] = []
        warned: list[str] = []
        try:
            for prompt in [
                "/simple-prompt",
                '/args-prompt "Le Puy" --state=Auvergne',
                "/args-prompt help",
                "/mcp refresh everything",
                f"Summarise @everything:{uri} please",
                # A URI the server did not list (one of its templates) is read too; a failing one is a warning.
                "Compare @everything:demo://resource/dynamic/text/7 and @everything:nope://x",
            ]:
                async for event in handle.session.send(prompt):
                    if isinstance(event, ev.Content):
                        shown.append(event.text)
                    elif isinstance(event, ev.Notice) and event.level in ("warning", "error"):
                        warned.append(event.message)
        finally:
            await handle.aclose()
        requests = [_texts(r) for r in fake.generation_requests()]
    assert requests[0] == ["This is a simple prompt without arguments."]
    assert requests[1] == ["What's weather in Le Puy, Auvergne?"]
    help_text = next(t for t in shown if "Arguments for" in t)
    assert "--city" in help_text and "required: yes" in help_text
    # help and /mcp are answered without the model; /mcp refresh restarted the server and waited for it
    listing = next(t for t in shown if t.startswith("MCP servers:"))
    assert "- **everything** (stdio): connected" in listing
    assert "`mcp_everything_echo`" in listing and "`/args-prompt`" in listing
    assert f"`@everything:{uri}`" in listing
    mention = requests[2]
    assert mention[0] == f"Summarise @everything:{uri} please"
    assert f"\nContent from @{uri}:\n" in mention
    assert f"<untrusted_context>\n{doc.read_text()}\n</untrusted_context>" in mention
    assert any("Resource 7" in t for t in requests[3]), requests[3]
    assert any("@everything:nope://x" in w for w in warned)
    assert len(requests) == 4


async def test_acp_editor_menu_lists_the_prompts_once_the_server_is_up(tmp_path: Path, _private_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    script = write_script(tmp_path / "s.jsonl", [text_turn("Sunny.")])
    editor = EditorClient()
    everything = {"name": "everything", "command": installed(NODE_BIN / "mcp-server-everything"), "args": ["stdio"]}
    async with connect(editor, agent_argv(script), agent_env(_private_home), project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[{**everything, "env": []}])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("/args-prompt Lyon")])
    menus = [u["availableCommands"] for u in editor.updates() if u["sessionUpdate"] == "available_commands_update"]
    offered = {c["name"]: c for c in menus[-1]}
    assert {"simple-prompt", "args-prompt", "help"} <= set(offered)
    assert offered["args-prompt"]["description"] == "A prompt with two arguments, one required and one optional"
    assert offered["args-prompt"]["input"] == {"hint": '--city="…" [--state="…"]'}
    said = [u for u in editor.updates() if u["sessionUpdate"] == "agent_message_chunk"]
    assert said and said[-1]["content"]["text"] == "Sunny."
