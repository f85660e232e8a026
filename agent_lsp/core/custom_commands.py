"""Running a custom command: ``@{path}`` files, ``{{args}}`` and ``!{shell}`` output turned into the prompt.

The order is Gemini CLI's: files are injected first (so a shell snippet can never make up a path to read),
then arguments and shell snippets, and when the template has no ``{{args}}`` the whole invocation is appended
after a blank line. Shell snippets run as ``run_shell_command`` calls through the session's own scheduler,
so they meet the same checks, policy and questions as the model's calls.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agent_lsp import events as ev
from agent_lsp.model.base import Part

if TYPE_CHECKING:
    from agent_lsp.core.session_state import CommandSession

ARGS = "{{args}}"
SHELL = "!{"
AT_FILE = "@{"
_EXIT = re.compile(r"^Exit Code: (-?\d+)$", re.M)
_SIGNAL = re.compile(r"^Signal: (\S+)$", re.M)
# The shell tool's result (local or the editor's terminal): "Output: ..." up to any status line after it.
_OUTPUT = re.compile(
    r"^Output: (.*?)"
    r"(?:\n(?:Error|Exit Code|Signal|Background PIDs|Process Group PGID): .*|\n</untrusted_context>.*)?\Z",
    re.M | re.S,
)


class CustomCommandDef(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def prompt(self) -> str: ...


class CommandAborted(Exception):
    """The command cannot produce a prompt (bad template, blocked or declined shell snippet): the user is told."""


PathReader = Callable[[str], Awaitable[tuple[list[Part], list[str]]]]


@dataclass(frozen=True)
class Injection:
    content: str
    start: int
    end: int


def extract_injections(text: str, trigger: str, command: str) -> list[Injection]:
    """``trigger ... }`` spans with balanced braces inside (a JSON payload in a shell snippet is fine)."""
    out: list[Injection] = []
    index = 0
    while (start := text.find(trigger, index)) != -1:
        depth = 1
        i = start + len(trigger)
        while i < len(text) and depth:
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
            i += 1
        if depth:
            raise CommandAborted(
                f"Invalid syntax in command '/{command}': the '{trigger}' at offset {start} is never closed. "
                "Braces inside it must balance; put a command with unbalanced braces in a script and call that."
            )
        out.append(Injection(text[start + len(trigger) : i - 1].strip(), start, i))
        index = i
    return out


@dataclass
class _Text:
    """A piece of the prompt: ``template`` pieces are processed further; injected file text never is."""

    part: Part
    template: bool


async def expand_custom_command(
    command: CustomCommandDef,
    args: str,
    raw: str,
    *,
    session: CommandSession,
    read_path: PathReader | None,
    emit: Callable[[ev.AgentEvent], None],
) -> list[Part]:
    """The parts to send to the model for ``raw`` (``/name args``), or CommandAborted saying why not."""
    prompt = command.prompt
    pieces = [_Text(Part(text=prompt), True)]
    if AT_FILE in prompt:
        pieces = await _inject_files(pieces, command.name, read_path, emit)
    if SHELL in prompt or ARGS in prompt:
        pieces = await _inject_shell(pieces, command.name, args, session)
    parts = [p.part for p in pieces if p.part.text != ""]
    if ARGS not in prompt and args:
        parts = _append_text(parts, raw)
    return parts


async def _inject_files(
    pieces: list[_Text], name: str, read_path: PathReader | None, emit: Callable[[ev.AgentEvent], None]
) -> list[_Text]:
    out: list[_Text] = []
    for piece in pieces:
        text = piece.part.text or ""
        if not piece.template or AT_FILE not in text:
            out.append(piece)
            continue
        last = 0
        for inj in extract_injections(text, AT_FILE, name):
            out.append(_Text(Part(text=text[last : inj.start]), True))
            placeholder = text[inj.start : inj.end]
            if read_path is None or not inj.content:
                emit(ev.Notice("error", f"Could not inject '{placeholder}': no path to read."))
                out.append(_Text(Part(text=placeholder), False))
            else:
                parts, warnings = await read_path(inj.content)
                for w in warnings:
                    emit(ev.Notice("warning", f"'{placeholder}': {w}"))
                if not parts and not warnings:
                    emit(ev.Notice("info", f"'{placeholder}' was ignored by .gitignore or .geminiignore."))
                if not parts and warnings:
                    out.append(_Text(Part(text=placeholder), False))  # left in place, as Gemini CLI does
                out.extend(_Text(p, False) for p in parts)
            last = inj.end
        out.append(_Text(Part(text=text[last:]), True))
    return out


async def _inject_shell(pieces: list[_Text], name: str, args: str, session: CommandSession) -> list[_Text]:
    escaped = shlex.quote(args) if args else ""
    plan: list[tuple[_Text, list[Injection]]] = []
    commands: list[str] = []
    for piece in pieces:
        text = piece.part.text or ""
        injections = extract_injections(text, SHELL, name) if piece.template and SHELL in text else []
        plan.append((piece, injections))
        commands.extend(inj.content.replace(ARGS, escaped) for inj in injections if inj.content)
    outputs = await run_shell_snippets(session, name, commands) if commands else []
    results = iter(outputs)
    out: list[_Text] = []
    for piece, injections in plan:
        if not piece.template:
            out.append(piece)
            continue
        text = piece.part.text or ""
        built, last = "", 0
        for inj in injections:
            built += text[last : inj.start].replace(ARGS, args)
            if inj.content:
                built += next(results)
            last = inj.end
        built += text[last:].replace(ARGS, args)
        out.append(_Text(Part(text=built), True))
    return out


async def run_shell_snippets(session: CommandSession, name: str, commands: Sequence[str]) -> list[str]:
    """Run each command as a ``run_shell_command`` call: checked by the policy first (one blocked command
    stops them all before any runs), then scheduled, asked about and run like a call from the model."""
    from agent_lsp.core.tool import SHELL_TOOL, ToolCallRequestInfo

    tool = session.registry.get(SHELL_TOOL)
    if tool is None or not session.policy.is_enabled(SHELL_TOOL):
        raise CommandAborted(
            f"/{name} cannot be run: it needs the shell, which this session does not offer (disabled by settings, "
            "or nobody is there to approve a command)."
        )
    for command in commands:
        decision, reason = session.policy.decide(tool, {"command": command})
        if decision == "deny":
            raise CommandAborted(f"/{name} cannot be run. Blocked command: `{command}`. {reason}")
    prefix = f"command-{session.new_call_prefix()}"
    calls = [
        ToolCallRequestInfo(f"{prefix}-{i}", SHELL_TOOL, {"command": c, "description": f"Shell snippet of /{name}"})
        for i, c in enumerate(commands)
    ]
    outcomes = await session.run_user_tools(calls)
    texts: list[str] = []
    for call, command in zip(calls, commands, strict=True):
        outcome = outcomes[call.call_id]
        if outcome.status == "cancelled":
            raise CommandAborted(f"/{name} was not run: the shell command `{command}` was not approved.")
        response = str(outcome.response.get("output", outcome.response.get("error", "")))
        if outcome.status == "error" and not _EXIT.search(response):
            raise CommandAborted(f"/{name} cannot be run: `{command}`: {response}")
        text = _output(response)
        tail = response[max(response.rfind("\nExit Code: "), response.rfind("\nSignal: "), 0) :]
        code, sig = _EXIT.search(tail), _SIGNAL.search(tail)
        if sig is not None:
            text += f"\n[Shell command '{command}' terminated by signal {sig.group(1)}]"
        elif code is not None and code.group(1) != "0":
            text += f"\n[Shell command '{command}' exited with code {code.group(1)}]"
        texts.append(text)
    return texts


def _output(response: str) -> str:
    m = _OUTPUT.search(response)
    if m is None:
        return ""
    text = m.group(1)
    return "" if text == "(empty)" else text


def _append_text(parts: list[Part], text: str) -> list[Part]:
    """Gemini CLI's default argument handling: the invocation after a blank line, on the last text part."""
    if parts and parts[-1].text is not None:
        return [*parts[:-1], Part(text=f"{parts[-1].text}\n\n{text}")]
    return [*parts, Part(text=f"\n\n{text}")]
