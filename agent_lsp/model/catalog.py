"""The model catalog both adapters and the command line read: Gemini CLI 0.61's default, aliases and choices,
the generation settings each model family gets, and the API's own model list when the key can read it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass

# Gemini CLI 0.61 defaults to "auto" (it routes between pro and flash per request). We make no routing
# calls, so "auto" resolves to the pro model it would pick for a key with preview access.
DEFAULT_MODEL = "auto"
ALIASES: dict[str, str] = {
    "auto": "gemini-3.1-pro-preview",
    "pro": "gemini-3.1-pro-preview",
    "auto-gemini-3": "gemini-3.1-pro-preview",
    "auto-gemini-2.5": "gemini-2.5-pro",
    "flash": "gemini-3-flash-preview",
    "flash-lite": "gemini-3.1-flash-lite",
}


@dataclass(frozen=True)
class ModelChoice:
    id: str
    name: str
    description: str = ""


# What a model picker offers, in Gemini CLI's order: auto first, then Gemini 3, then the 2.5 family.
CHOICES: tuple[ModelChoice, ...] = (
    ModelChoice("auto", "Auto (Gemini 3)", "Gemini 3.1 Pro for every request (Gemini CLI routes; we do not)"),
    ModelChoice("gemini-3.1-pro-preview", "Gemini 3.1 Pro (preview)"),
    ModelChoice("gemini-3-pro-preview", "Gemini 3 Pro (preview)"),
    ModelChoice("gemini-3-flash-preview", "Gemini 3 Flash (preview)"),
    ModelChoice("gemini-3.5-flash", "Gemini 3.5 Flash"),
    ModelChoice("gemini-3.1-flash-lite", "Gemini 3.1 Flash-Lite"),
    ModelChoice("gemini-2.5-pro", "Gemini 2.5 Pro"),
    ModelChoice("gemini-2.5-flash", "Gemini 2.5 Flash"),
    ModelChoice("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite"),
)
CHOICE_IDS = tuple(c.id for c in CHOICES)

# Gemini CLI's chat settings: temperature 1, topP 0.95, topK 64; 2.5 models think with a token budget,
# Gemini 3 models with a thinking level.
TEMPERATURE = 1.0
TOP_P = 0.95
TOP_K = 64
THINKING_BUDGET = 8192
THINKING_LEVEL = "HIGH"
_GEMINI_3 = re.compile(r"^(models/)?gemini-3(\.|-|$)")
_GEMINI_2 = re.compile(r"^(models/)?gemini-2(\.|-|$)")


def token_limit(model: str) -> int:
    """Context window of a Gemini model (every current one has about a million tokens)."""
    if "1.5-pro" in model:
        return 2_097_152
    return 1_048_576


def resolve_model(name: str | None) -> str:
    """The model id a request names: aliases resolved, anything else passed through as the user wrote it."""
    name = (name or DEFAULT_MODEL).strip() or DEFAULT_MODEL
    return ALIASES.get(name, name)


@dataclass(frozen=True)
class GenerationSettings:
    temperature: float | None = TEMPERATURE
    top_p: float | None = TOP_P
    top_k: int | None = TOP_K
    thinking_budget: int | None = None
    thinking_level: str | None = None


def generation_settings(model: str) -> GenerationSettings:
    """What the main conversation sends for ``model``, as Gemini CLI 0.61's chat model configs do."""
    if _GEMINI_3.match(model):
        return GenerationSettings(thinking_level=THINKING_LEVEL)
    if _GEMINI_2.match(model):
        return GenerationSettings(thinking_budget=THINKING_BUDGET)
    return GenerationSettings()


def choices_from_api(models: list[dict[str, Any]]) -> list[ModelChoice]:
    """Choices from the API's ``models.list`` answer: chat-capable Gemini models, ours first in our order."""
    found: dict[str, ModelChoice] = {}
    for m in models:
        ident = str(m.get("name", "")).removeprefix("models/")
        methods = m.get("supportedGenerationMethods") or m.get("supported_actions") or []
        if not ident.startswith("gemini-") or "generateContent" not in methods:
            continue
        found[ident] = ModelChoice(ident, str(m.get("displayName") or m.get("display_name") or ident))
    known = [c for c in CHOICES if c.id == "auto" or c.id in found]
    extra = sorted((c for i, c in found.items() if i not in CHOICE_IDS), key=lambda c: c.id)
    return [*known, *extra]


async def list_api_models(client: Any, timeout_s: float | None = None) -> list[ModelChoice] | None:
    """The key's models through a client with ``list_models()``; None when the key cannot list them (or the API
    does not answer within ``timeout_s``)."""
    lister = getattr(client, "list_models", None)
    if lister is None:
        return None
    try:
        raw = await (lister() if timeout_s is None else lister(timeout_s))
    except Exception:  # the list is a nicety: any failure falls back to the built-in choices
        return None
    return choices_from_api(raw) or None
