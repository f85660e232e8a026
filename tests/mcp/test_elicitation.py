"""MCP elicitation: server-everything's trigger-elicitation-request (offered only to a client that declares
elicitation) asks for a form; the editor shows it (ACP elicitation/create through the ACP SDK's own client; LSP in
tests/lsp/test_e2e_mcp_elicitation.py), a client that shows no forms gets a plain question or a decline, and
headless declines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import text_block

from agent_lsp.mcp.elicitation import FormRequest, check_answer, parse_form, simple_choices
from tests.acp.editor import EditorClient, connect
from tests.acp.harness import agent_argv, agent_env, call_turn, text_turn, write_script

from .conftest import SERVER
from .third_party_servers import NODE_BIN, installed

TOOL = "mcp_everything_trigger-elicitation-request"


def everything_settings() -> dict[str, Any]:
    return {"command": installed(NODE_BIN / "mcp-server-everything"), "args": ["stdio"]}


def _script(tmp_path: Path) -> Path:
    return write_script(tmp_path / "elicit.jsonl", [call_turn((TOOL, {})), text_turn("Done.")])


def result_text(updates: list[dict[str, Any]]) -> str:
    """The text of the elicitation tool's finished call, as the editor received it."""
    done = [u for u in updates if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "completed"]
    assert done, updates
    return json.dumps(done[-1])


async def _acp_prompt(editor: EditorClient, tmp_path: Path, home: Path) -> str:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    async with connect(editor, agent_argv(_script(tmp_path)), agent_env(home), project) as conn:
        session = await conn.new_session(
            cwd=str(project), mcp_servers=[{"name": "everything", **everything_settings(), "env": []}]
        )
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    editor.checker.assert_clean()
    return str(response.stop_reason)


async def test_acp_client_that_shows_forms_gets_elicitation_create_and_its_answer_reaches_the_server(
    tmp_path: Path, _private_home: Path
) -> None:
    def fill(raw: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        # What a person types: a number arrives as text from a text box, a choice by its value.
        return "accept", {"name": "Ada Lovelace", "check": True, "integer": "7", "titledSingleSelectEnum": "hero-3"}

    editor = EditorClient(answer="proceed_once", form=fill)
    assert await _acp_prompt(editor, tmp_path, _private_home) == "end_turn"
    [asked] = editor.elicitations
    assert asked["mode"] == "form" and asked["message"].startswith("MCP server 'everything': Please provide inputs")
    props = asked["requestedSchema"]["properties"]
    assert asked["requestedSchema"]["required"] == ["name"]
    assert props["check"]["type"] == "boolean" and props["integer"] == {
        "title": "Integer",
        "description": props["integer"]["description"],
        "type": "integer",
        "minimum": 1,
        "maximum": 100,
        "default": 42,
    }
    # Enums of every spelling (enum, oneOf, enumNames, multi-select) reach the client as titled options.
    assert props["legacyTitledEnum"]["oneOf"][1] == {"const": "pet-2", "title": "Dogs"}
    assert props["titledMultipleSelectEnum"]["items"]["anyOf"][0] == {"const": "fish-1", "title": "Tuna"}
    result = result_text(editor.updates())
    assert "- Name: Ada Lovelace" in result and "- Agreed to terms: true" in result
    assert "- Favorite Integer: 7" in result


async def test_acp_client_without_forms_is_not_sent_elicitation_and_a_big_form_is_declined(
    tmp_path: Path, _private_home: Path
) -> None:
    editor = EditorClient(answer="proceed_once")
    assert await _acp_prompt(editor, tmp_path, _private_home) == "end_turn"
    assert editor.elicitations == []
    assert len(editor.permission_requests) == 1  # the tool call only: a 12-field form is no yes/no question
    assert "User declined to provide the requested information" in result_text(editor.updates())


async def test_acp_client_that_declines_and_one_that_cancels(tmp_path: Path, _private_home: Path) -> None:
    editor = EditorClient(answer="proceed_once", form=lambda raw: ("cancel", None))
    assert await _acp_prompt(editor, tmp_path, _private_home) == "end_turn"
    assert "User cancelled the elicitation dialog" in result_text(editor.updates())


def test_headless_declines_a_form_with_a_line_on_stderr(tmp_path: Path, _private_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    settings = _private_home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"mcpServers": {"everything": everything_settings()}}))
    env = {**os.environ, "AGENT_LSP_TRUST_WORKSPACE": "true"}
    argv = [sys.executable, "-m", "agent_lsp", "--approval-mode", "yolo", "-o", "stream-json", "-p", "go"]
    done = subprocess.run(
        [*argv, "--fake-responses", str(_script(tmp_path))],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (
        "MCP server 'everything' asked for input (Please provide inputs for the following fields:); "
        "declined: nobody can answer in a non-interactive run." in done.stderr
    )
    results = [json.loads(line) for line in done.stdout.splitlines() if '"tool_result"' in line]
    assert "User declined to provide the requested information" in json.dumps(results), done.stdout


# --- the form's rules, on schemas as servers write them ----------------------------------------------------


def _form(props: dict[str, Any], required: list[str] | None = None) -> FormRequest:
    return parse_form("srv", "Pick", {"type": "object", "properties": props, "required": required or []})


def test_small_forms_are_plain_questions_and_big_ones_are_not() -> None:
    assert simple_choices(_form({})) == [("Accept", {})]
    assert simple_choices(_form({"ok": {"type": "boolean", "title": "Proceed"}})) == [
        ("Yes", {"ok": True}),
        ("No", {"ok": False}),
    ]
    color = {"type": "string", "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}]}
    assert simple_choices(_form({"c": color})) == [("Red", {"c": "r"}), ("Green", {"c": "g"})]
    assert simple_choices(_form({"a": {"type": "string"}})) is None
    assert simple_choices(_form({"a": {"type": "boolean"}, "b": {"type": "boolean"}})) is None
    assert _form({"c": color}).question == "MCP server 'srv' asks: Pick (c)"


def test_answers_are_coerced_to_the_form_and_checked() -> None:
    form = _form(
        {
            "n": {"type": "integer", "minimum": 1, "maximum": 10},
            "x": {"type": "number"},
            "b": {"type": "boolean"},
            "e": {"type": "string", "enum": ["a", "b"]},
            "m": {"type": "array", "items": {"type": "string", "enum": ["p", "q"]}},
            "s": {"type": "string"},
        },
        required=["s"],
    )
    given = {"n": "3", "x": "1e2", "b": "true", "e": "b", "m": ["q"], "s": "hi", "extra": "dropped"}
    assert check_answer(form, given) == {"n": 3, "x": 100.0, "b": True, "e": "b", "m": ["q"], "s": "hi"}
    assert check_answer(form, {"s": "hi", "n": ""}) == {"s": "hi"}
    for bad, why in (
        ({"s": ""}, "s is required"),
        ({"s": "x", "n": "11"}, "n: '11' does not fit (an integer from 1 to 10)"),
        ({"s": "x", "n": "2.5"}, "does not fit"),
        ({"s": "x", "e": "z"}, "e: 'z' does not fit (one of a, b)"),
        ({"s": "x", "x": "nan"}, "does not fit"),
    ):
        with pytest.raises(ValueError, match=why.replace("(", r"\(").replace(")", r"\)")):
            check_answer(form, bad)


def test_a_schema_no_form_can_show_is_refused_naming_the_field() -> None:
    from agent_lsp.mcp.elicitation import UnsupportedForm

    with pytest.raises(UnsupportedForm, match="'deep'"):
        _form({"deep": {"type": "object", "properties": {}}})


async def test_acp_client_without_forms_answers_a_yes_no_form_as_a_permission_question(
    tmp_path: Path, _private_home: Path
) -> None:
    """The small real server (tests/mcp/servers/echo_server.py, the mcp SDK's ctx.elicit) asks one yes/no."""
    project = tmp_path / "project"
    project.mkdir()
    script = write_script(
        tmp_path / "confirm.jsonl", [call_turn(("mcp_echo_confirm", {"question": "Deploy now?"})), text_turn("Ok.")]
    )

    async def answer(raw: dict[str, Any]) -> str:
        options = {o["name"]: o["optionId"] for o in raw["options"]}
        return options.get("Yes", options.get("Allow once", "cancelled"))

    editor = EditorClient(answer=answer)
    echo = {"name": "echo", "command": sys.executable, "args": [str(SERVER), "--name", "echo"], "env": []}
    async with connect(editor, agent_argv(script), agent_env(_private_home), project) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[echo])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    assert response.stop_reason == "end_turn"
    editor.checker.assert_clean()
    asked = editor.permission_requests[1]
    assert asked["toolCall"]["title"] == "MCP server 'echo' asks: Deploy now? (Proceed)"
    assert [(o["name"], o["kind"]) for o in asked["options"]] == [
        ("Yes", "allow_once"),
        ("No", "allow_once"),
        ("Decline", "reject_once"),
    ]
    assert "accept: True" in result_text(editor.updates())


class _Nobody:
    """An elicitor that is never asked here: only its presence (the editor can show forms) matters."""

    async def elicit(self, request: FormRequest) -> Any:
        raise AssertionError("not asked in this test")


async def test_only_form_mode_is_declared_to_servers_and_nothing_without_an_elicitor(tmp_path: Path) -> None:
    from agent_lsp.untrusted import wrap_untrusted
    from tests.mcp.conftest import Harness, stdio_spec

    # What the server read from the capability the SDK sent: URL mode is never offered, since it is not handled.
    for elicitor, expected in ((_Nobody(), '{"form":{}}'), (None, "none")):
        h = Harness([stdio_spec("echo")], tmp_path, elicitor=elicitor)
        h.manager.start()
        await h.manager.wait_ready(30)
        try:
            assert (await h.call("echo", "elicitation_modes")).llm_content == wrap_untrusted(expected)
        finally:
            await h.manager.aclose()
