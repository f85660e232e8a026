"""What a session offers to choose, in ACP's shapes, for both adapters: its modes (SessionModeState), its
model and approval-mode pickers (SessionConfigOption selects, also sent later as ``config_option_update``) and its
slash commands (AvailableCommand entries)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_lsp.model.catalog import CHOICES
from agent_lsp.vocabulary import MODES

if TYPE_CHECKING:
    from agent_lsp.core.commands import CommandSpec

MODELS: tuple[tuple[str, str], ...] = tuple((c.id, c.name) for c in CHOICES)
MODEL_OPTION = "model"
MODE_OPTION = "mode"


def mode_state(current: str) -> dict[str, Any]:
    """ACP SessionModeState."""
    return {
        "currentModeId": current,
        "availableModes": [{"id": m.id, "name": m.name, "description": m.description} for m in MODES],
    }


def config_options(model: str, mode: str, choices: list[tuple[str, str]] | None = None) -> list[dict[str, Any]]:
    """``choices`` are the (value, name) pairs the session's providers offer; Gemini's usual models if None."""
    models = list(choices) if choices is not None else list(MODELS)
    if model not in (m for m, _ in models):
        models.insert(0, (model, model))
    return [
        {
            "id": MODEL_OPTION,
            "name": "Model",
            "description": "The model that answers in this session (another provider's switches provider).",
            "category": "model",
            "type": "select",
            "currentValue": model,
            "options": [{"value": v, "name": n} for v, n in models],
        },
        {
            "id": MODE_OPTION,
            "name": "Approval mode",
            "description": "When tools may run without asking.",
            "category": "mode",
            "type": "select",
            "currentValue": mode,
            "options": [{"value": m.id, "name": m.name, "description": m.description} for m in MODES],
        },
    ]


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
