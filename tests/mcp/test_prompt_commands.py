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

from agent_lsp.mcp.prompt_commands import MissingArguments, parse_prompt_args
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


def _agent(prompt: str, project: Path, home: Path, fake: FakeGemini) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "AGENT_LSP_TRUST"))}
    env.update(HOME=str(home), AGENT_LSP_HOME=str(home / ".agent-lsp"), AGENT_LSP_TRUST_WORKSPACE="true")
    env.update(GEMINI_API_KEY="test-key-not-real", GOOGLE_GEMINI_BASE_URL=fake.url)
    return subprocess.run(
        [sys.executable, "-m", "agent_lsp", "-p", prompt],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _answer(text: str) -> list[dict[str, Any]]:
    return [{"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}]}]


def _user_text(request: Any) -> str:
    return "".join(p.get("text", "") for p in request.body["contents"][-1]["parts"])


def test_headless_sends_a_servers_prompt(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".gemini").mkdir(parents=True)
    project.mkdir()
    server = {"command": installed(NODE_BIN / "mcp-server-everything"), "args": ["stdio"]}
    (home / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": {"everything": server}}))
    with FakeGemini([_answer("Sunny."), _answer("Hello."), _answer("Rainy.")]) as fake:
        named = _agent("/args-prompt --city=Lyon", project, home, fake)
        plain = _agent("/simple-prompt", project, home, fake)
        positional = _agent('/args-prompt "Le Puy" --state=Auvergne', project, home, fake)
        helped = _agent("/args-prompt help", project, home, fake)
        listing = _agent("/mcp", project, home, fake)
        sent = [_user_text(r) for r in fake.generation_requests()]
    assert named.returncode == 0, named.stderr
    assert named.stdout.strip() == "Sunny." and plain.stdout.strip() == "Hello."
    assert positional.stdout.strip() == "Rainy."
    assert sent[0] == "What's weather in Lyon?"
    assert sent[1] == "This is a simple prompt without arguments."
    assert sent[2] == "What's weather in Le Puy, Auvergne?"
    assert len(sent) == 3  # help and /mcp are answered without the model
    assert "--city" in helped.stdout and "required: yes" in helped.stdout
    assert "- **everything** (stdio): connected" in listing.stdout
    assert "`mcp_everything_echo`" in listing.stdout and "`/args-prompt`" in listing.stdout
    assert "`@everything:demo://resource/static/document/architecture.md`" in listing.stdout


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


def test_headless_puts_a_mentioned_resource_into_the_request(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".gemini").mkdir(parents=True)
    project.mkdir()
    server = {"command": installed(NODE_BIN / "mcp-server-everything"), "args": ["stdio"]}
    (home / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": {"everything": server}}))
    doc = NODE_BIN.parent / "@modelcontextprotocol" / "server-everything" / "dist" / "docs" / "architecture.md"
    uri = "demo://resource/static/document/architecture.md"
    with FakeGemini([_answer("Read it."), _answer("Got it.")]) as fake:
        listed = _agent(f"Summarise @everything:{uri} please", project, home, fake)
        # A URI the server did not list (one of its templates) is read too; a failing one is a warning.
        templated = _agent(
            "Compare @everything:demo://resource/dynamic/text/7 and @everything:nope://x", project, home, fake
        )
        first, second = (r.body["contents"][-1]["parts"] for r in fake.generation_requests())
    assert listed.returncode == 0, listed.stderr
    texts = [p.get("text", "") for p in first]
    assert texts[0] == f"Summarise @everything:{uri} please"
    assert f"\nContent from @{uri}:\n" in texts
    assert f"<untrusted_context>\n{doc.read_text()}\n</untrusted_context>" in texts
    assert any("Resource 7" in p.get("text", "") for p in second), second
    assert templated.returncode == 0 and "@everything:nope://x" in templated.stderr
