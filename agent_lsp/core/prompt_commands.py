"""Slash commands from outside the session (MCP servers' prompts): what the command runner asks of their source."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, Protocol

from agent_lsp import events as ev

PromptReply = tuple[Literal["prompt", "say", "error"], str]
"""What a prompt command gives: a prompt to send to the model, text to show, or an error to show."""


class PromptCommandSource(Protocol):
    """Commands whose text comes from elsewhere; the list may change while the session runs."""

    def specs(self) -> Sequence[tuple[str, str, str]]:
        """The commands offered now, for the editors' menus and /help: (name, description, argument hint)."""
        ...

    def has(self, name: str) -> bool: ...

    async def wait(self) -> None:
        """Until the sources still starting have started or failed (each is bounded), so a command sent right
        after a session opened finds them."""
        ...

    async def render(self, name: str, args: str) -> PromptReply: ...


async def run_prompt_command(
    source: PromptCommandSource, name: str, args: str, emit: Callable[[ev.AgentEvent], None]
) -> tuple[bool, str | None]:
    """(whether ``name`` is one of ``source``'s commands, the prompt to send if it gave one)."""
    if not source.has(name):
        await source.wait()
        if not source.has(name):
            return False, None
    kind, text = await source.render(name, args)
    if kind == "prompt":
        return True, text
    emit(ev.Content(text) if kind == "say" else ev.Notice("error", text))
    return True, None
