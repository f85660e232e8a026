"""The lenient typed reader (agent_lsp/fields.py) and the readers built on it (editor options, policy rules,
extension manifests, hook definitions and answers, ACP params): a value of the wrong type is left out
and reported with where it came from, its key and the reason; the rest is kept."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from pydantic import Field

from agent_lsp.adapters.acp.handshake import ClientCapabilities, check_initialize
from agent_lsp.adapters.acp.jsonrpc import RpcError
from agent_lsp.adapters.acp.params import Params, optional_str, require_list, require_str
from agent_lsp.adapters.acp.session_setup import mcp_servers_from_acp
from agent_lsp.adapters.lsp.config import parse_config
from agent_lsp.adapters.lsp.context import check_context
from agent_lsp.extensions.manifest import ManifestError, read_manifest
from agent_lsp.fields import Fields, conforms
from agent_lsp.hooks.answer import read_answer
from agent_lsp.hooks.config import HookCommand, parse_hooks
from agent_lsp.hooks.runner import HookRun
from agent_lsp.hooks.system import merge
from agent_lsp.policy.loader import parse_rule


def test_plain_types_are_checked_without_coercion() -> None:
    assert conforms(True, bool) and not conforms(1, bool)
    assert conforms(3, int) and not conforms(True, int) and not conforms("3", int)
    assert conforms(2, float) and conforms(2.5, float) and not conforms(False, float)
    assert conforms({"a": 1}, dict) and not conforms([], dict)


def test_richer_types_go_through_pydantic_in_strict_mode() -> None:
    assert conforms(["a", "b"], list[str]) and not conforms(["a", 1], list[str]) and not conforms(("a",), list[str])
    assert conforms("deny", Literal["allow", "deny"]) and not conforms("maybe", Literal["allow", "deny"])
    small = Annotated[int, Field(ge=0, le=9)]
    assert conforms(9, small) and not conforms(10, small) and not conforms(True, small)


def test_problems_name_where_the_key_and_the_reason_and_values_only_when_asked() -> None:
    fields = Fields({"a": "x", "b": 2, "c": None}, "settings.json")
    assert fields.take("a", int, "must be a number") is None
    assert fields.take("b", int, "must be a number") == 2
    assert fields.take("c", int, "must be a number") is None  # null: absent, not a problem
    assert fields.take("d", int, "must be a number", aliases=("b",)) == 2
    assert fields.require("e", str, "is required") is None
    assert fields.problems == ["settings.json: a must be a number", "settings.json: e is required"]
    shown = Fields({"a": "x"}, show_values=True, quote_keys=True)
    shown.take("a", int, "must be a number")
    assert shown.problems == ["'a' must be a number (got 'x')"]


def test_editor_options_keep_what_is_valid_and_never_echo_a_value() -> None:
    config = parse_config(
        {
            "agentLsp": {
                "model": 7,
                "approvalMode": "sneaky-secret",
                "checkpointing": {"enabled": "yes"},
                "trustWorkspace": False,
            }
        }
    )
    assert config.trust is False and config.model is None and config.approval_mode is None
    assert config.checkpointing is None
    assert config.problems == (
        "model must be a string",
        "approvalMode must be one of default, auto_edit, yolo, plan",
        "checkpointing must be true or false",
    )
    assert "sneaky-secret" not in " ".join(config.problems)


def test_editor_options_do_not_import_pydantic() -> None:
    check = (
        "import sys\nfrom agent_lsp.adapters.lsp.config import parse_config\n"
        "parse_config({'model': 1, 'approvalMode': 'yolo', 'mcpServers': []})\n"
        "print('pydantic' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "False"


def test_a_policy_rule_reports_each_bad_field_and_fails_closed() -> None:
    rules, problem = parse_rule({"toolName": "", "decision": "deny", "priority": 1000, "interactive": "no"}, 2, "x")
    assert [(r.tool_name, r.decision) for r in rules] == [("*", "deny")]  # a broken deny rule covers more
    assert problem == (
        "priority must be an integer from 0 to 999 (got 1000); "
        "toolName is required: a tool name, a list of names, or \"*\" (got ''); "
        "interactive must be true or false (got 'no')"
    )
    dropped, why = parse_rule({"toolName": ["a", 1], "decision": "allow", "priority": 1}, 2, "x")
    assert dropped == [] and why is not None and why.endswith("(rule ignored)")


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ({"version": "1"}, "'name' is required"),
        ({"name": "x y", "version": "1"}, "'name' is required"),
        ({"name": "x", "version": " "}, "'version' is required"),
        ({"name": "x", "version": "1", "mcpServers": {"s": 1}}, "'mcpServers' must be an object"),
        ({"name": "x", "version": "1", "excludeTools": ["a", 2]}, "'excludeTools' must be a list of tool names"),
        ({"name": "x", "version": "1", "settings": [{"name": "k"}]}, "settings[0] needs a 'name' and an 'envVar'"),
    ],
)
def test_an_extension_manifest_names_the_file_and_the_field(tmp_path: Path, manifest: dict, message: str) -> None:
    (tmp_path / "gemini-extension.json").write_text(json.dumps(manifest))
    with pytest.raises(ManifestError) as caught:
        read_manifest(tmp_path)
    assert str(caught.value).startswith(str(tmp_path / "gemini-extension.json") + ": ") and message in str(caught.value)


def test_a_sound_manifest_reads_whole(tmp_path: Path) -> None:
    data = {
        "name": "tools-x",
        "version": "1.0.0",
        "contextFileName": [],
        "excludeTools": ["run_shell_command"],
        "settings": [{"name": "Key", "envVar": "X_KEY", "sensitive": True}],
    }
    (tmp_path / "gemini-extension.json").write_text(json.dumps(data))
    manifest = read_manifest(tmp_path)
    assert (manifest.name, manifest.context_file_names, manifest.exclude_tools) == (
        "tools-x",
        (),
        ("run_shell_command",),
    )
    assert manifest.settings[0].env_var == "X_KEY" and manifest.settings[0].sensitive


def test_hook_definitions_name_the_entry_the_key_and_the_reason_and_keep_the_rest() -> None:
    raw = {
        "BeforeTool": [
            {"matcher": 3, "hooks": [{"command": "a"}]},
            {"hooks": "x"},
            {
                "matcher": "read_.*",
                "hooks": [
                    {"command": "  "},
                    {"type": "prompt", "command": "b"},
                    {"command": "c", "timeout": True, "name": 5, "env": ["SECRET=1"]},
                    {"command": "d", "timeout": 250.5, "name": "dee", "env": {"A": 1}},
                ],
            },
        ]
    }
    hooks, problems = parse_hooks(raw)
    assert [(h.command, h.name, h.timeout_ms, h.matcher, h.env) for h in hooks] == [
        ("c", "c", 60_000, "read_.*", ()),
        ("d", "dee", 250, "read_.*", (("A", "1"),)),
    ]
    assert problems == [
        "hooks.BeforeTool[0]: 'matcher' must be a string; the definition was ignored.",
        "hooks.BeforeTool[1]: 'hooks' must be a list of hooks; the definition was ignored.",
        "hooks.BeforeTool[2].hooks[0]: 'command' is required (a command line); ignored.",
        "hooks.BeforeTool[2].hooks[1]: 'type' is not supported (only \"command\"); ignored.",
        "hooks.BeforeTool[2].hooks[2]: 'timeout' must be a positive number of milliseconds; using 60000.",
        "hooks.BeforeTool[2].hooks[2]: 'name' must be a string; the command names the hook.",
        "hooks.BeforeTool[2].hooks[2]: 'env' must be an object of variable names and values; ignored.",
    ]
    assert "SECRET" not in " ".join(problems)


def test_a_hook_answer_keeps_its_good_fields_and_warns_of_each_bad_one() -> None:
    hook = HookCommand(event="BeforeTool", command="check", name="guard", timeout_ms=1000)
    answer = {
        "decision": "deny",
        "reason": ["not", "text"],
        "systemMessage": "looked at it",
        "continue": "no",
        "hookSpecificOutput": {"additionalContext": 7, "tool_input": {"path": "b.txt"}, "clearContext": True},
    }
    outcome = merge("BeforeTool", [HookRun(hook, 0, answer, "")])
    assert outcome.blocked and not outcome.stop and outcome.reason == ""
    assert outcome.tool_input == {"path": "b.txt"} and outcome.clear_context and outcome.additional_context == ""
    assert outcome.notices == (
        ("warning", "BeforeTool hook 'guard': 'continue' must be true or false; ignored."),
        ("warning", "BeforeTool hook 'guard': 'reason' must be a string; ignored."),
        ("warning", "BeforeTool hook 'guard': hookSpecificOutput: 'additionalContext' must be a string; ignored."),
        ("info", "looked at it"),
    )
    assert read_answer({"hookSpecificOutput": []}, "h").problems == (
        "h: 'hookSpecificOutput' must be an object; ignored.",
    )


@pytest.mark.parametrize(
    ("params", "read", "field", "why"),
    [
        ({}, lambda p: require_str(p, "sessionId"), "sessionId", "is required and must be a non-empty string"),
        (
            {"sessionId": ""},
            lambda p: require_str(p, "sessionId"),
            "sessionId",
            "is required and must be a non-empty string",
        ),
        (
            {"sessionId": 1},
            lambda p: require_str(p, "sessionId"),
            "sessionId",
            "is required and must be a non-empty string",
        ),
        ({"cursor": 2}, lambda p: optional_str(p, "cursor"), "cursor", "must be a string"),
        ({"prompt": "hi"}, lambda p: require_list(p, "prompt"), "prompt", "is required and must be an array"),
        ({}, lambda p: require_list(p, "prompt"), "prompt", "is required and must be an array"),
        (
            {"mcpServers": {}},
            lambda p: require_list(p, "mcpServers", default_empty=True),
            "mcpServers",
            "is required and must be an array",
        ),
        (
            {"name": "x", "command": "c", "args": ["a", 1]},
            lambda p: mcp_servers_from_acp([p]),
            "mcpServers[0].args",
            "must be an array of strings",
        ),
        (
            {"name": " ", "command": "c"},
            lambda p: mcp_servers_from_acp([p]),
            "mcpServers[0].name",
            "is required and must be a non-empty string",
        ),
        (
            {"type": "http", "name": "x"},
            lambda p: mcp_servers_from_acp([p]),
            "mcpServers[0].url",
            "is required and must be a string",
        ),
    ],
)
def test_acp_params_are_answered_naming_the_field_and_the_reason(params: dict, read: Any, field: str, why: str) -> None:
    with pytest.raises(RpcError) as caught:
        read(params)
    assert caught.value.data == {"field": field} and caught.value.message == f"Invalid params: {field} {why}"


def test_acp_params_of_the_right_type_are_read() -> None:
    assert require_str({"sessionId": "s"}, "sessionId") == "s" and optional_str({}, "cursor") is None
    assert require_list({"prompt": []}, "prompt") == [] and require_list({}, "mcpServers", default_empty=True) == []
    assert Params({"n": 2}, "x").take("n", int, "must be a number") == 2


@pytest.mark.parametrize(
    ("params", "why"),
    [
        ([], "params must be an object"),
        ({}, "protocolVersion is required and must be a non-negative integer"),
        ({"protocolVersion": True}, "protocolVersion is required and must be a non-negative integer"),
        ({"protocolVersion": -1}, "protocolVersion is required and must be a non-negative integer"),
        ({"protocolVersion": 1}, None),
    ],
)
def test_acp_initialize_names_a_bad_protocol_version(params: Any, why: str | None) -> None:
    assert check_initialize(params) == why


def test_acp_client_capabilities_of_the_wrong_shape_count_as_absent() -> None:
    caps = ClientCapabilities.from_initialize(
        {
            "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": "yes"}, "auth": [], "terminal": True},
            "clientInfo": {"name": 7},
        }
    )
    assert (caps.read_text_file, caps.write_text_file, caps.terminal, caps.terminal_auth, caps.name) == (
        True,
        False,
        True,
        False,
        "",
    )
    named = ClientCapabilities.from_initialize(
        {"clientInfo": {"name": "zed"}, "clientCapabilities": {"session": {"notices": {}}}}
    )
    assert named.name == "zed" and named.notices


@pytest.mark.parametrize(
    ("context", "why"),
    [
        ([], "context must be an object"),
        ({"uri": 1}, "context.uri must be a string"),
        ({"selectedText": ["x"]}, "context.selectedText must be a string"),
        ({"diagnostics": {}}, "context.diagnostics must be an array"),
        ({"range": {"start": {"line": 0, "character": 0}}}, "context.range.end must be a position {line, character}"),
        (
            {"range": {"start": {"line": -1, "character": 0}, "end": {"line": 0, "character": 0}}},
            "context.range.start.line must be a non-negative integer",
        ),
        ({"diagnostics": [{"message": 3}]}, "context.diagnostics[0] must be a diagnostic {range, message}"),
        (
            {
                "diagnostics": [
                    {
                        "message": "m",
                        "range": {"start": {"line": 0, "character": True}, "end": {"line": 0, "character": 0}},
                    }
                ]
            },
            "context.diagnostics[0].range.start.character must be a non-negative integer",
        ),
    ],
)
def test_lsp_editor_context_names_the_first_bad_field(context: Any, why: str) -> None:
    with pytest.raises(ValueError, match=re.escape(why)):
        check_context(context)
    check_context(
        {"uri": "file:///a.py", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}}
    )
