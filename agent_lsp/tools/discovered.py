"""Project-discovered tools: a discovery command lists function declarations, a call command runs them."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_lsp.errors import ConfigError, ToolError
from agent_lsp.events import ConfirmationDetails
from agent_lsp.tools.base import OutputSink, Tool, ToolInvocation, ToolResult
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.shell_process import terminate_group

SERVER = "discovered"
DISCOVERY_TIMEOUT_S = 30.0
CALL_TIMEOUT_S = 300.0

# What the Gemini API accepts as a function name.
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$")
_SCHEMA_TYPES = frozenset({"object", "string", "number", "integer", "boolean", "array", "null"})


class DiscoveryError(ConfigError):
    """The discovery command failed or printed something unusable. ``problems`` lists every issue;
    ``tools`` holds the declarations that were fine, so a caller may still register those."""

    def __init__(self, command: str, problems: list[str], tools: list[Tool]) -> None:
        listed = "\n".join(f"- {p}" for p in problems)
        super().__init__(
            f"the tool discovery command `{command}` gave unusable output:\n{listed}", key="discoveryCommand"
        )
        self.command = command
        self.problems = problems
        self.tools = tools


@dataclass(frozen=True)
class _Captured:
    stdout: str
    stderr: str
    returncode: int | None
    timed_out: bool


async def _capture(command: str, *, cwd: Path, stdin: bytes | None, timeout_s: float, env: dict[str, str]) -> _Captured:
    """Run ``command`` with bash in its own process group; the group is killed on timeout or cancellation."""
    proc = await asyncio.create_subprocess_exec(
        "bash",
        "-c",
        command,
        cwd=cwd,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=env,
    )
    finished = False
    try:
        async with asyncio.timeout(timeout_s):
            out, err = await proc.communicate(stdin)
        finished = True
    except TimeoutError:
        return _Captured("", "", None, timed_out=True)
    finally:
        if not finished:
            await terminate_group(proc)
    return _Captured(out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), proc.returncode, False)


async def discover_tools(
    ctx: ToolContext, discovery_command: str, call_command: str, *, timeout_s: float = DISCOVERY_TIMEOUT_S
) -> list[Tool]:
    """Run ``discovery_command`` in the primary root and turn the JSON array it prints into tools.

    Entries are bare declarations (``{name, description, parameters}``) or ``{"functionDeclarations": [...]}``.
    Raises :class:`DiscoveryError` listing every problem (the good tools are on the exception)."""
    run = await _capture(
        discovery_command, cwd=ctx.workspace.primary, stdin=None, timeout_s=timeout_s, env=ctx.child_env.for_command()
    )
    if run.timed_out:
        raise DiscoveryError(discovery_command, [f"it did not finish within {timeout_s:g} s"], [])
    if run.returncode != 0:
        stderr = run.stderr.strip() or "(no error output)"
        raise DiscoveryError(discovery_command, [f"it exited with code {run.returncode}: {stderr}"], [])
    try:
        data = json.loads(run.stdout)
    except json.JSONDecodeError as exc:
        shown = run.stdout.strip()[:200] or "(nothing)"
        problem = f"its output is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}): {shown}"
        raise DiscoveryError(discovery_command, [problem], []) from exc
    if not isinstance(data, list):
        raise DiscoveryError(discovery_command, [f"its output must be a JSON array, not {_kind(data)}"], [])
    problems: list[str] = []
    tools: list[Tool] = []
    seen: set[str] = set()
    for i, entry in enumerate(data):
        for where, decl in _declarations(entry, f"entry {i}", problems):
            tool = _tool_from(ctx, decl, where, call_command, problems)
            if tool is None:
                continue
            if tool.name in seen:
                problems.append(f"{where} ('{tool.name}'): the name is declared more than once")
                continue
            seen.add(tool.name)
            tools.append(tool)
    if problems:
        raise DiscoveryError(discovery_command, problems, tools)
    return tools


def _declarations(entry: Any, where: str, problems: list[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    # A generator, so problems are recorded in the order the entries appear.
    if not isinstance(entry, dict):
        problems.append(f"{where}: expected an object, got {_kind(entry)}")
        return
    group = entry.get("functionDeclarations", entry.get("function_declarations"))
    if group is None:
        yield where, entry
        return
    if not isinstance(group, list):
        problems.append(f"{where}: functionDeclarations must be an array, not {_kind(group)}")
        return
    for j, decl in enumerate(group):
        if isinstance(decl, dict):
            yield f"{where}, declaration {j}", decl
        else:
            problems.append(f"{where}, declaration {j}: expected an object, got {_kind(decl)}")


def _tool_from(
    ctx: ToolContext, decl: dict[str, Any], where: str, call_command: str, problems: list[str]
) -> DiscoveredTool | None:
    name = decl.get("name")
    if not isinstance(name, str) or not name:
        problems.append(f"{where}: missing a string 'name'")
        return None
    where = f"{where} ('{name}')"
    if not _NAME.match(name):
        problems.append(
            f"{where}: the name must start with a letter or underscore and use only letters, digits, "
            "_ . : - (at most 128 characters)"
        )
        return None
    description = decl.get("description", "")
    if not isinstance(description, str):
        problems.append(f"{where}: 'description' must be a string")
        return None
    raw = decl.get("parametersJsonSchema", decl.get("parameters_json_schema", decl.get("parameters")))
    if raw is None:
        schema: dict[str, Any] = {"type": "object", "properties": {}}
    elif not isinstance(raw, dict):
        problems.append(f"{where}: 'parameters' must be a JSON schema object, not {_kind(raw)}")
        return None
    else:
        schema = _normalize_schema(raw)
        if schema.get("type", "object") != "object":
            problems.append(f"{where}: 'parameters' must describe an object, not {schema.get('type')!r}")
            return None
        schema.setdefault("type", "object")
    return DiscoveredTool(ctx, name=name, description=description, parameters=schema, call_command=call_command)


def _normalize_schema(value: Any) -> Any:
    """Gemini's Schema spells types in capitals ("OBJECT"); JSON schema wants them lower-case."""
    if isinstance(value, dict):
        out = {k: _normalize_schema(v) for k, v in value.items()}
        t = out.get("type")
        if isinstance(t, str) and t.lower() in _SCHEMA_TYPES:
            out["type"] = t.lower()
        return out
    if isinstance(value, list):
        return [_normalize_schema(v) for v in value]
    return value


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number" if isinstance(value, int | float) else type(value).__name__)


class DiscoveredTool(Tool):
    """A tool the project declared; calling it runs ``<call_command> <name>`` with the arguments on stdin."""

    kind = "other"
    truncate_output = True

    def __init__(
        self, ctx: ToolContext, *, name: str, description: str, parameters: dict[str, Any], call_command: str
    ) -> None:
        self.ctx = ctx
        self.name = name
        self.tool_name = name  # the registry may rename self.name on a clash; the project knows this one
        self.display_name = name
        self.server = SERVER
        self.parameters = parameters
        self.call_command = call_command
        self.timeout_s = CALL_TIMEOUT_S
        self.description = (
            f"{description.strip()}\n\n" if description.strip() else ""
        ) + "This tool comes from the project's tool discovery; it runs as a program with the arguments as JSON."

    def build(self, params: dict[str, Any]) -> DiscoveredInvocation:
        problem = self.validate(params)
        if problem:
            raise ToolError(problem, "invalid_params")
        return DiscoveredInvocation(dict(params), self)


class DiscoveredInvocation(ToolInvocation[dict[str, Any]]):
    def __init__(self, params: dict[str, Any], tool: DiscoveredTool) -> None:
        super().__init__(params)
        self.tool = tool

    @property
    def command(self) -> str:
        return f"{self.tool.call_command} {shlex.quote(self.tool.tool_name)}"

    def describe(self) -> str:
        args = json.dumps(self.params, ensure_ascii=False)
        return f"{self.tool.tool_name} {args if len(args) <= 100 else args[:97] + '...'}"

    async def confirmation(self) -> ConfirmationDetails:
        # No root_commands on purpose: "allow always" should trust this tool, not every use of its
        # interpreter in the shell.
        return ConfirmationDetails(type="exec", title=self.describe(), command=self.command)

    async def execute(self, output: OutputSink) -> ToolResult:
        stdin = json.dumps(self.params).encode("utf-8")
        run = await _capture(
            self.command,
            cwd=self.tool.ctx.workspace.primary,
            stdin=stdin,
            timeout_s=self.tool.timeout_s,
            env=self.tool.ctx.child_env.for_command(),
        )
        if not run.timed_out and run.returncode == 0:
            return ToolResult(llm_content=run.stdout if run.stdout.strip() else "(no output)", display=run.stdout)
        if run.timed_out:
            status = f"Error: it did not finish within {self.tool.timeout_s:g} s and was stopped"
            error = f"`{self.command}` timed out"
        elif run.returncode is not None and run.returncode < 0:
            status = f"Signal: {-run.returncode}"
            error = f"`{self.command}` was killed by signal {-run.returncode}"
        else:
            status = f"Exit Code: {run.returncode}"
            error = f"`{self.command}` failed with exit code {run.returncode}"
        text = f"Stdout: {run.stdout.rstrip() or '(empty)'}\nStderr: {run.stderr.rstrip() or '(empty)'}\n{status}"
        return ToolResult(llm_content=text, display=text, error=error, error_type="discovered_tool_failed")
