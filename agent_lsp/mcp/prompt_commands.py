"""MCP servers' prompts as slash commands, taking arguments as Gemini CLI does (``--name=value`` or by position)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from agent_lsp.core.prompt_commands import PromptReply
from agent_lsp.errors import ToolError
from agent_lsp.mcp.catalog import get_prompt

if TYPE_CHECKING:
    from agent_lsp.mcp.manager import McpManager

_NAMED = re.compile(r'--([^=]+)=(?:"((?:\\.|[^"\\])*)"|([^ ]+))')
_POSITIONAL = re.compile(r'"((?:\\.|[^"\\])*)"|([^ ]+)')
_ESCAPED = re.compile(r"\\(.)")


class MissingArguments(ValueError):
    """Required arguments that were neither named nor given by position."""


def parse_prompt_args(text: str, declared: Sequence[tuple[str, bool]]) -> dict[str, str]:
    """The values for a prompt's ``declared`` (name, required) arguments from what followed the command.

    Named values (``--city=Lyon``, ``--city="Le Puy"``) come first; the words left over fill the required
    arguments still missing, in order, and a single missing one takes all of them (``/ask what is this``).
    """
    named: dict[str, str] = {}
    rest: list[str] = []
    last = 0
    for match in _NAMED.finditer(text):
        value = match[2] if match[2] is not None else match[3]
        named[match[1]] = _ESCAPED.sub(r"\1", value)
        rest.append(text[last : match.start()])
        last = match.end()
    rest.append(text[last:])
    positional = [
        _ESCAPED.sub(r"\1", m[1] if m[1] is not None else m[2]) for m in _POSITIONAL.finditer("".join(rest).strip())
    ]
    values = {name: named[name] for name, _required in declared if named.get(name)}
    unfilled = [name for name, required in declared if required and name not in values]
    if len(unfilled) == 1:
        values[unfilled[0]] = " ".join(positional)
        return values
    missing = []
    for i, name in enumerate(unfilled):
        if i < len(positional):
            values[name] = positional[i]
        else:
            missing.append(name)
    if missing:
        raise MissingArguments("Missing required argument(s): " + ", ".join(f"--{name}" for name in missing))
    return values


class McpPromptCommands:
    """A PromptCommandSource over the session's MCP manager (which exists once the session has started)."""

    def __init__(self, manager: Callable[[], McpManager | None]) -> None:
        self._manager = manager

    def _prompts(self) -> dict[str, tuple[str, Any]]:
        """Command name -> (server, prompt). A name a former server already gave is offered as ``server:name``."""
        manager = self._manager()
        out: dict[str, tuple[str, Any]] = {}
        for server, prompt in manager.prompts() if manager is not None else []:
            name = re.sub(r"\s+", "-", str(prompt.name).strip())
            out[f"{server}:{name}" if name in out else name] = (server, prompt)
        return out

    def specs(self) -> list[tuple[str, str, str]]:
        return [
            (name, str(prompt.description or f"Invoke prompt {prompt.name}"), _hint(prompt))
            for name, (_server, prompt) in self._prompts().items()
        ]

    def has(self, name: str) -> bool:
        return name in self._prompts()

    async def wait(self) -> None:
        manager = self._manager()
        if manager is not None and manager.connecting():
            await manager.wait_ready()

    async def render(self, name: str, args: str) -> PromptReply:
        server, prompt = self._prompts()[name]
        declared = [(str(a.name), bool(a.required)) for a in prompt.arguments or ()]
        if args.strip() == "help":
            return "say", _help(prompt)
        try:
            values = parse_prompt_args(args, declared)
        except MissingArguments as exc:
            return "error", str(exc)
        manager = self._manager()
        if manager is None:
            return "error", f"MCP server '{server}' is not running"
        try:
            result = await get_prompt(manager, server, str(prompt.name), values)
        except ToolError as exc:
            return "error", str(exc)
        texts = [_text_of(message.content) for message in result.messages]
        text = "\n\n".join(t for t in texts if t)
        if not text:
            return "error", f"MCP prompt '{prompt.name}' of '{server}' gave no text to send."
        return "prompt", text


def _text_of(content: Any) -> str | None:
    if getattr(content, "type", None) == "text":
        return str(content.text)
    resource = getattr(content, "resource", None)  # an embedded text resource
    body = getattr(resource, "text", None)
    return body if isinstance(body, str) else None


def _hint(prompt: Any) -> str:
    parts = []
    for arg in prompt.arguments or ():
        flag = f'--{arg.name}="…"'
        parts.append(flag if arg.required else f"[{flag}]")
    return " ".join(parts)


def _help(prompt: Any) -> str:
    arguments = list(prompt.arguments or ())
    if not arguments:
        return f'Prompt "{prompt.name}" has no arguments.'
    lines = [
        f'Arguments for "{prompt.name}" (by name, `--name="value"`, or by position):',
        "",
    ]
    for arg in arguments:
        about = f": {arg.description}" if arg.description else ""
        lines.append(f"- `--{arg.name}`{about} (required: {'yes' if arg.required else 'no'})")
    return "\n".join(lines)
