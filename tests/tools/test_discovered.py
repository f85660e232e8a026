"""Tests for discovered tools, using small Python scripts as the discovery and call commands."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
import time
from pathlib import Path

import pytest

from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.discovered import DiscoveredTool, DiscoveryError, discover_tools
from agent_lsp.tools.registry import ToolRegistry
from agent_lsp.workspace.filesystem import LocalFileSystem
from agent_lsp.workspace.roots import Workspace

DECLARATIONS = [
    {
        "name": "add",
        "description": "Adds two numbers.",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    },
    {
        "functionDeclarations": [
            {
                "name": "shout",
                "description": "Upper-cases text.",
                "parameters": {"type": "OBJECT", "properties": {"text": {"type": "STRING"}}},
            },
            {"name": "where"},
        ]
    },
]

CALL_SCRIPT = """
import json, os, sys, time
name = sys.argv[1]
args = json.load(sys.stdin)
if name == "add":
    print(args["a"] + args["b"])
elif name == "shout":
    print(args["text"].upper())
elif name == "where":
    print(os.getcwd())
elif name == "fail":
    print("partial")
    print("bad input", file=sys.stderr)
    sys.exit(3)
elif name == "hang":
    open(args["pidfile"], "w").write(str(os.getpid()))
    time.sleep(30)
else:
    print("unknown tool " + name, file=sys.stderr)
    sys.exit(2)
"""


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "ws"
    root.mkdir()
    return ToolContext(Workspace([root]), LocalFileSystem(), tmp_path / "tmp")


def python_command(tmp_path: Path, name: str, source: str) -> str:
    script = tmp_path / name
    script.write_text(source)
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def printer(tmp_path: Path, output: str, exit_code: int = 0) -> str:
    source = f"import sys\nsys.stdout.write({output!r})\nsys.stderr.write('oh no')\nsys.exit({exit_code})\n"
    return python_command(tmp_path, "discover.py", source)


@pytest.fixture
def call_command(tmp_path: Path) -> str:
    return python_command(tmp_path, "call.py", CALL_SCRIPT)


async def test_discovers_bare_and_grouped_declarations(ctx: ToolContext, tmp_path: Path, call_command: str) -> None:
    tools = await discover_tools(ctx, printer(tmp_path, json.dumps(DECLARATIONS)), call_command)
    assert [t.name for t in tools] == ["add", "shout", "where"]
    add, shout, where = tools
    assert all(t.server == "discovered" and t.kind == "other" and t.truncate_output for t in tools)
    assert add.description.startswith("Adds two numbers.")
    assert add.parameters["required"] == ["a", "b"]
    assert shout.parameters == {"type": "object", "properties": {"text": {"type": "string"}}}
    assert where.parameters == {"type": "object", "properties": {}}
    assert add.validate({"a": 1}) == "params must have required property 'b'"


async def test_calls_run_the_call_command_with_args_on_stdin(
    ctx: ToolContext, tmp_path: Path, call_command: str
) -> None:
    tools = {t.name: t for t in await discover_tools(ctx, printer(tmp_path, json.dumps(DECLARATIONS)), call_command)}
    result = await tools["add"].build({"a": 2, "b": 3}).execute(lambda _c: None)
    assert result.error is None and result.llm_content == "5\n"
    result = await tools["shout"].build({"text": "hey"}).execute(lambda _c: None)
    assert result.llm_content == "HEY\n"
    result = await tools["where"].build({}).execute(lambda _c: None)
    assert result.llm_content == f"{ctx.workspace.primary}\n"


async def test_confirmation_shows_the_call_command(ctx: ToolContext, tmp_path: Path, call_command: str) -> None:
    (add, *_rest) = await discover_tools(ctx, printer(tmp_path, json.dumps(DECLARATIONS)), call_command)
    details = await add.build({"a": 1, "b": 2}).confirmation()
    assert details is not None
    assert details.type == "exec"
    assert details.command == f"{call_command} add"
    assert details.root_commands == ()  # allow-always trusts this tool, not the interpreter


async def test_failure_reports_stdout_stderr_and_exit_code(ctx: ToolContext, call_command: str) -> None:
    tool = DiscoveredTool(ctx, name="fail", description="", parameters={"type": "object"}, call_command=call_command)
    result = await tool.build({}).execute(lambda _c: None)
    assert result.error is not None and "exit code 3" in result.error
    assert result.llm_content == "Stdout: partial\nStderr: bad input\nExit Code: 3"


async def test_cancel_kills_the_call(ctx: ToolContext, tmp_path: Path, call_command: str) -> None:
    tool = DiscoveredTool(ctx, name="hang", description="", parameters={"type": "object"}, call_command=call_command)
    pidfile = tmp_path / "pid"
    task = asyncio.create_task(tool.build({"pidfile": str(pidfile)}).execute(lambda _c: None))
    for _ in range(250):
        if pidfile.exists() and pidfile.read_text():
            break
        await asyncio.sleep(0.02)
    pid = int(pidfile.read_text())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.02)
    else:
        pytest.fail("the call command outlived cancellation")


async def test_registry_rename_keeps_the_project_name(ctx: ToolContext, tmp_path: Path, call_command: str) -> None:
    tools = await discover_tools(ctx, printer(tmp_path, json.dumps(DECLARATIONS)), call_command)
    again = await discover_tools(ctx, printer(tmp_path, json.dumps(DECLARATIONS)), call_command)
    registry = ToolRegistry(tools)
    assert registry.register(again[0]) == "discovered__add"
    result = await again[0].build({"a": 20, "b": 22}).execute(lambda _c: None)
    assert result.llm_content == "42\n"


async def test_malformed_entries_are_all_listed(ctx: ToolContext, tmp_path: Path, call_command: str) -> None:
    output = json.dumps(
        [
            {"name": "ok", "description": "fine"},
            "just a string",
            {"description": "no name"},
            {"name": "bad name!"},
            {"name": "params", "parameters": ["not", "a", "schema"]},
            {"name": "scalar", "parameters": {"type": "string"}},
            {"functionDeclarations": {"name": "x"}},
            {"functionDeclarations": [{"name": "ok"}, 5]},
        ]
    )
    with pytest.raises(DiscoveryError) as info:
        await discover_tools(ctx, printer(tmp_path, output), call_command)
    err = info.value
    assert [t.name for t in err.tools] == ["ok"]
    assert err.problems == [
        "entry 1: expected an object, got a string",
        "entry 2: missing a string 'name'",
        "entry 3 ('bad name!'): the name must start with a letter or underscore and use only letters, digits, "
        "_ . : - (at most 128 characters)",
        "entry 4 ('params'): 'parameters' must be a JSON schema object, not an array",
        "entry 5 ('scalar'): 'parameters' must describe an object, not 'string'",
        "entry 6: functionDeclarations must be an array, not an object",
        "entry 7, declaration 0 ('ok'): the name is declared more than once",
        "entry 7, declaration 1: expected an object, got a number",
    ]
    assert "discoveryCommand" in str(err) and "- entry 1: expected an object" in str(err)


@pytest.mark.parametrize(
    ("output", "exit_code", "expected"),
    [
        ("not json at all", 0, "not valid JSON"),
        ('{"name": "x"}', 0, "must be a JSON array, not an object"),
        ("", 0, "not valid JSON"),
        ("[]", 4, "exited with code 4: oh no"),
    ],
)
async def test_unusable_output(
    ctx: ToolContext, tmp_path: Path, call_command: str, output: str, exit_code: int, expected: str
) -> None:
    with pytest.raises(DiscoveryError) as info:
        await discover_tools(ctx, printer(tmp_path, output, exit_code), call_command)
    assert expected in str(info.value)
    assert info.value.tools == []


async def test_empty_array_is_no_tools(ctx: ToolContext, tmp_path: Path, call_command: str) -> None:
    assert await discover_tools(ctx, printer(tmp_path, "[]"), call_command) == []


async def test_discovery_timeout(ctx: ToolContext, call_command: str) -> None:
    started = time.monotonic()
    with pytest.raises(DiscoveryError) as info:
        await discover_tools(ctx, "sleep 20", call_command, timeout_s=0.3)
    assert "did not finish within 0.3 s" in str(info.value)
    assert time.monotonic() - started < 3
