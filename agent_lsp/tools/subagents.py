"""Subagent definitions: the built-in agents Gemini CLI 0.61 offers, and the user's and (trusted) workspace's
``agents/*.md`` files (YAML front matter, the body is the system prompt)."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_lsp.config.skills import parse_front_matter, read_front_matter

if TYPE_CHECKING:
    from agent_lsp.config.settings import AgentOverride

DEFAULT_MAX_TURNS = 30
DEFAULT_MAX_MINUTES = 10
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_KNOWN_KEYS = {"kind", "name", "description", "display_name", "tools", "model", "temperature", "max_turns"}
_KNOWN_KEYS |= {"timeout_mins", "mcp_servers"}


@dataclass(frozen=True)
class AgentDefinition:
    """One subagent: what the main model is told, what it runs with, and how long it may run."""

    name: str
    description: str
    system_prompt: str | None  # None: the main session's own system prompt (the generalist)
    query: str = "{input}"  # the first message; ``{input}`` is what invoke_agent's prompt said
    display_name: str | None = None
    tools: tuple[str, ...] | None = None  # None: every tool of the session ("*" too)
    max_turns: int = DEFAULT_MAX_TURNS
    max_minutes: float = DEFAULT_MAX_MINUTES
    model: str | None = None  # None: the session's model
    output_name: str = "result"
    output_schema: dict[str, Any] = field(default_factory=lambda: {"type": "string"})
    source: str = "built-in"
    read_only: bool = False  # may run in plan mode
    # How the submitted output reads for the main model (Gemini CLI's processOutput); None: JSON as submitted.
    format_output: Callable[[Any], str] | None = None


_INVESTIGATOR_PROMPT = """You are Codebase Investigator, a subagent that studies a code base on behalf of another agent.
Your job is understanding, not implementation: find the files, symbols and relationships that matter for the
objective, work out why the code is shaped as it is, and foresee what a change would ripple into (callers, types,
tests). Do not stop at the first relevant file, and do not write the final code yourself.

Work in a loop of small steps with your read-only tools. Keep a short scratchpad in your replies: a checklist of what
to find out, open questions, and findings with file paths. When every question is answered, call `complete_task`
with a `report` object: `SummaryOfFindings` (your conclusions for the other agent), `ExplorationTrace` (the steps
you took) and `RelevantLocations` (each with `FilePath`, `Reasoning` and `KeySymbols`)."""

_INVESTIGATOR = AgentDefinition(
    name="codebase_investigator",
    display_name="Codebase Investigator Agent",
    description=(
        "Analyses the code base: architecture, dependencies across the system, the root cause of a bug, where a "
        "feature or refactoring has to touch. Use it for vague requests and questions that need investigation; it "
        "returns a structured report of the relevant files, symbols and insights."
    ),
    system_prompt=_INVESTIGATOR_PROMPT,
    query="Investigate the code base for this objective and report what is relevant to it:\n<objective>\n{input}\n"
    "</objective>",
    tools=("list_directory", "read_file", "glob", "grep_search"),
    max_turns=50,
    max_minutes=10,
    output_name="report",
    output_schema={
        "type": "object",
        "properties": {
            "SummaryOfFindings": {"type": "string", "description": "The conclusions, for the agent that asked."},
            "ExplorationTrace": {"type": "array", "items": {"type": "string"}, "description": "The steps taken."},
            "RelevantLocations": {
                "type": "array",
                "description": "The relevant files and their key symbols.",
                "items": {
                    "type": "object",
                    "properties": {
                        "FilePath": {"type": "string"},
                        "Reasoning": {"type": "string"},
                        "KeySymbols": {"type": "array", "items": {"type": "string"}},
                    },
                    "required": ["FilePath", "Reasoning", "KeySymbols"],
                },
            },
        },
        "required": ["SummaryOfFindings", "ExplorationTrace", "RelevantLocations"],
    },
    read_only=True,
)

_GENERALIST = AgentDefinition(
    name="generalist",
    display_name="Generalist Agent",
    description=(
        "A general-purpose agent with all of the session's tools, in a history of its own. Use it for work that "
        "takes many turns or much output, to keep the main conversation short: edits or fixes across many files, "
        "commands with long output, exploratory investigations."
    ),
    system_prompt=None,
    tools=None,
    max_turns=20,
    max_minutes=10,
    output_name="result",
    output_schema={
        "type": "object",
        "properties": {"response": {"type": "string", "description": "The final answer."}},
        "required": ["response"],
    },
)

_CLI_HELP_PROMPT = """You are CLI Help Agent, who knows agent-lsp: a coding agent that lives in the editor (Agent Client
Protocol for Zed, JetBrains and Neovim plugins; LSP for its VS Code extension and Neovim plugin; a headless command
line) and follows Gemini CLI's behaviour, settings, tools and file formats.

What you know of this run: agent-lsp ${cliVersion}, model ${activeModel}, today is ${today}.

Answer from the documentation, not from memory: call `get_internal_docs` with no arguments to list its files, then
read the ones that matter. Be exact (setting names, commands, file locations) and say when the documentation does
not cover something. You cannot ask questions back; if the question is ambiguous, answer its likeliest meaning.

Finish by calling `complete_task` with a `report` holding your `answer` and the `sources` (the files you used)."""


def _answer_with_sources(output: Any) -> str:
    """cli_help's report as the main model reads it: the answer, then its sources once each."""
    if not isinstance(output, dict):
        return output if isinstance(output, str) else json.dumps(output)
    answer = str(output.get("answer") or "").strip()
    sources = list(dict.fromkeys(str(s).strip() for s in output.get("sources") or [] if str(s).strip()))
    return answer + ("\n\n**Sources:**\n" + "\n".join(f"- {s}" for s in sources) if sources else "")


_CLI_HELP = AgentDefinition(
    name="cli_help",
    display_name="CLI Help Agent",
    description=(
        "Answers questions about agent-lsp itself: its features, settings and configuration files (policies, "
        "hooks, MCP servers, skills), its editor integrations, and how to write custom commands or subagents. It "
        "reads agent-lsp's own documentation to answer."
    ),
    system_prompt=_CLI_HELP_PROMPT,
    query="Answer this question about agent-lsp:\n<question>\n{input}\n</question>",
    tools=("get_internal_docs",),
    max_turns=10,
    max_minutes=3,
    output_name="report",
    output_schema={
        "type": "object",
        "properties": {
            "answer": {"type": "string", "description": "The full answer to the question."},
            "sources": {"type": "array", "items": {"type": "string"}, "description": "The documentation files used."},
        },
        "required": ["answer", "sources"],
    },
    read_only=True,
    format_output=_answer_with_sources,
)

BUILT_IN: tuple[AgentDefinition, ...] = (_INVESTIGATOR, _CLI_HELP, _GENERALIST)
NOT_OFFERED = {"browser_agent": "it drives Chrome through the Chrome DevTools MCP server, which agent-lsp lacks"}


def apply_overrides(
    agents: Sequence[AgentDefinition], overrides: Mapping[str, AgentOverride]
) -> tuple[list[AgentDefinition], list[str]]:
    """``agents.overrides`` applied (0.61's): ``enabled: false`` drops an agent, ``runConfig`` changes its limits,
    ``modelConfig.model`` its model. Problems are messages for the user."""
    out: list[AgentDefinition] = []
    problems = [
        f"The agent '{name}' is not available in agent-lsp: {why}."
        for name, why in NOT_OFFERED.items()
        if name in overrides and overrides[name].enabled
    ]
    for agent in agents:
        o = overrides.get(agent.name)
        if o is None:
            out.append(agent)
            continue
        if o.enabled is False:
            continue
        model = o.model_settings.get("model")
        if model is not None and not isinstance(model, str):
            problems.append(f"agents.overrides.{agent.name}.modelConfig.model must be a model name; ignored.")
            model = None
        out.append(
            dataclasses.replace(
                agent,
                max_turns=o.run_config.max_turns or agent.max_turns,
                max_minutes=o.run_config.max_time_minutes or agent.max_minutes,
                model=None if model == "inherit" else (model or agent.model),
            )
        )
    return out, problems


def agent_dirs(workspace_root: Path, *, home: Path, trusted: bool) -> list[tuple[Path, str]]:
    """Where agent files are read, lowest precedence last: the workspace's (only when trusted), then the user's.
    A name already taken keeps its first definition, as Gemini CLI does."""
    dirs = [(workspace_root / ".gemini" / "agents", "workspace")] if trusted else []
    return [*dirs, (home / ".gemini" / "agents", "user")]


def load_agents(dirs: Sequence[tuple[Path, str]]) -> tuple[list[AgentDefinition], list[str]]:
    """Built-in agents, then those defined in ``dirs``; problems are messages for the user."""
    found: dict[str, AgentDefinition] = {a.name: a for a in BUILT_IN}
    problems: list[str] = []
    for folder, source in dirs:
        try:
            files = sorted(p for p in folder.iterdir() if p.suffix == ".md" and not p.name.startswith("_"))
        except OSError:
            continue
        for path in files:
            agent = _load(path, source, problems)
            if agent is None:
                continue
            if agent.name in found:
                problems.append(
                    f"Duplicate agent name '{agent.name}' ({path}): the earlier definition is kept. Rename one of them."
                )
                continue
            found[agent.name] = agent
    return list(found.values()), problems


def _load(path: Path, source: str, problems: list[str]) -> AgentDefinition | None:
    try:
        front, body = read_front_matter(path)
    except ValueError as exc:
        problems.append(f"Agent loading error: {path}: {exc}.")
        return None
    meta = parse_front_matter(front)
    unknown = sorted(set(meta) - _KNOWN_KEYS)
    name, description = meta.get("name", ""), meta.get("description", "")
    problem = None
    if unknown:
        problem = f"unknown key(s) {', '.join(unknown)}"
    elif not _NAME.match(name):
        problem = "'name' must be lower-case letters, digits, '-' or '_'"
    elif not description:
        problem = "'description' is required"
    elif meta.get("kind", "local") != "local":
        problem = "only local agents are supported (kind: local)"
    if problem is not None:
        problems.append(f"Agent loading error: {path}: {problem}.")
        return None
    try:
        max_turns = int(meta.get("max_turns") or DEFAULT_MAX_TURNS)
        minutes = int(meta.get("timeout_mins") or DEFAULT_MAX_MINUTES)
    except ValueError:
        problems.append(f"Agent loading error: {path}: max_turns and timeout_mins must be whole numbers.")
        return None
    if max_turns < 1 or minutes < 1:
        problems.append(f"Agent loading error: {path}: max_turns and timeout_mins must be positive.")
        return None
    if "mcp_servers" in meta:
        problems.append(f"Agent {name} ({path}): mcp_servers is not supported yet; the agent runs without them.")
    tools = _list_value(front, "tools")
    return AgentDefinition(
        name=name,
        description=description,
        system_prompt=body,
        display_name=meta.get("display_name") or None,
        tools=None if tools is None or "*" in tools else tuple(tools),
        max_turns=max_turns,
        max_minutes=minutes,
        model=None if meta.get("model") in (None, "", "inherit") else meta["model"],
        source=source,
    )


def _list_value(front: str, key: str) -> list[str] | None:
    """A YAML list given inline (``[a, b]``) or as ``- item`` lines; None when the key is absent."""
    lines = front.splitlines()
    for i, line in enumerate(lines):
        m = re.match(rf"^{key}:\s*(.*)$", line)
        if m is None:
            continue
        inline = m.group(1).strip()
        if inline.startswith("["):
            return [v.strip().strip("'\"") for v in inline.strip("[]").split(",") if v.strip()]
        items = []
        for nxt in lines[i + 1 :]:
            item = re.match(r"^\s*-\s*(.+)$", nxt)
            if item is None:
                break
            items.append(item.group(1).strip().strip("'\""))
        return items
    return None
