"""ACP's shapes of what a session offers the editor (permission options, slash commands), built from the shared
vocabulary and the command specs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_lsp.vocabulary import PermissionChoice

if TYPE_CHECKING:
    from agent_lsp.core.commands import CommandSpec


def permission_options(choices: list[PermissionChoice]) -> list[dict[str, Any]]:
    """ACP PermissionOption entries for the vocabulary's permission choices."""
    return [{"optionId": c.option_id, "name": c.name, "kind": c.kind} for c in choices]


def available_commands(specs: Sequence[CommandSpec] | None = None) -> list[dict[str, Any]]:
    """ACP AvailableCommand entries: the session's commands (custom ones included), else the built-in ones."""
    from agent_lsp.core.commands import COMMANDS

    out: list[dict[str, Any]] = []
    for c in COMMANDS if specs is None else specs:
        entry: dict[str, Any] = {"name": c.name, "description": c.description}
        if c.hint:
            entry["input"] = {"hint": c.hint}
        out.append(entry)
    return out
