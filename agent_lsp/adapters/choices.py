"""What a session offers to choose, in ACP's shapes, for both adapters: its modes (SessionModeState) and its
model and approval-mode pickers (SessionConfigOption selects, also sent later as ``config_option_update``)."""

from __future__ import annotations

from typing import Any

from agent_lsp.model.catalog import CHOICES
from agent_lsp.vocabulary import MODES

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
