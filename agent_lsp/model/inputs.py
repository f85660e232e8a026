"""What a model accepts besides text — images, audio, PDF — per provider and model (docs/models.md#inputs).

Three sources, the first that knows wins: settings ``model.models.<name>.inputs`` (the user's word), what the provider
says of the model (an OpenAI-compatible endpoint's model list or Ollama's / LM Studio's model description), then the
documented table below. A model none of them knows accepts text only: what it cannot take is refused before the
request, with the setting to name, rather than dropped after it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from agent_lsp.model.base import Part

Source = Literal["setting", "provider", "table", "unknown"]
KINDS = ("image", "audio", "pdf")
# What our Chat Completions requests can carry (model/openai_compat/request.py): input_audio takes these two.
OPENAI_AUDIO = frozenset({"audio/wav", "audio/x-wav", "audio/wave", "audio/mpeg", "audio/mp3"})


@dataclass(frozen=True)
class ModelInputs:
    """Whether a model takes images, audio and PDF documents, and who said so."""

    image: bool = False
    audio: bool = False
    pdf: bool = False
    source: Source = "unknown"

    @classmethod
    def of(cls, kinds: Iterable[str], source: Source) -> ModelInputs:
        names = set(kinds)
        return cls("image" in names, "audio" in names, "pdf" in names, source)

    def prompt_capabilities(self) -> dict[str, Any]:
        """ACP's PromptCapabilities for this model (PDF has no key there: it travels as an embedded resource)."""
        return {
            "image": self.image,
            "audio": self.audio,
            "embeddedContext": True,
            "_meta": {"agent-lsp": {"pdf": self.pdf, "source": self.source}},
        }

    def refused(self, parts: Sequence[Part], provider: str, model: str) -> str | None:
        """Why a prompt carrying ``parts`` cannot go to ``model``, or None; said before anything is sent."""
        for part in parts:
            data = part.inline_data
            if data is None:
                continue
            mime = data.mime_type
            kind = "image" if mime.startswith("image/") else "audio" if mime.startswith("audio/") else None
            kind = "pdf" if mime == "application/pdf" else kind
            if kind is None:
                continue
            if not getattr(self, kind):
                return (
                    f"{model} does not take {_NAMES[kind]} ({_WHY[self.source]}). Remove it, pick a model that "
                    f'reads {_NAMES[kind]}, or list "{kind}" in settings model.models.{model}.inputs if it does.'
                )
            if kind == "audio" and provider == "openai" and mime not in OPENAI_AUDIO:
                return f"{model} takes audio as WAV or MP3 through this endpoint, not {mime}. Convert it first."
        return None


_NAMES = {"image": "images", "audio": "audio", "pdf": "PDF documents"}
_WHY = {
    "setting": "settings model.models say so",
    "provider": "its provider says so",
    "table": "docs/models.md's table",
    "unknown": "neither its provider nor the table knows it, so it is taken to read text only",
}

# The documented table (docs/models.md#what-a-model-accepts), for OpenAI-compatible endpoints by family name.
_VISION_MARK = re.compile(r"vision|-vl\b|vl-|llava|pixtral|minicpm-v|moondream|omni", re.IGNORECASE)
_VISION = re.compile(
    r"gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-5|(^|/)o[134](-|$)|claude|gemini|gemma-?3(?!n?-1b)|llama-?4", re.IGNORECASE
)
_TEXT_ONLY = re.compile(
    r"gpt-3\.5|gpt-oss|(^|/)o[13]-mini|deepseek|codestral|coder|mistral-7b|mixtral|llama-?3(\.[013])?[-:]|"
    r"phi-?[234]|qwen-?[23](\.5)?[-:]|qwq|smollm",
    re.IGNORECASE,
)
_AUDIO = re.compile(r"-audio|audio-|omni|voxtral|qwen2?-audio|(^|/)gemini", re.IGNORECASE)
_PDF = re.compile(r"(^|/)(gpt-4o|gpt-4\.1|gpt-5|o[134](-|$)|claude|gemini)", re.IGNORECASE)


def table_inputs(provider: str, model: str) -> ModelInputs | None:
    """The documented table: every Gemini model takes images, audio and PDF (and the replay model takes what it is
    given); an OpenAI-compatible model by its family name; None when the family is not in the table."""
    if provider in ("gemini", "replay"):
        return ModelInputs(True, True, True, "table")
    audio, pdf = bool(_AUDIO.search(model)), bool(_PDF.search(model))
    if _VISION_MARK.search(model):
        return ModelInputs(True, audio, pdf, "table")
    if _TEXT_ONLY.search(model):
        return ModelInputs(False, audio, False, "table")
    if _VISION.search(model):
        return ModelInputs(True, audio, pdf, "table")
    return ModelInputs(False, True, False, "table") if audio else None


def table_capabilities(provider: str, model: str) -> dict[str, Any]:
    """ACP's PromptCapabilities from the table alone: what a session's answer says before its settings and its
    endpoint are read (the adapters send the full answer of :func:`resolve` once they are)."""
    return (table_inputs(provider, model) or ModelInputs()).prompt_capabilities()


def from_description(entry: Mapping[str, Any]) -> ModelInputs | None:
    """What an endpoint's own description of a model says, or None when it says nothing about inputs:
    OpenRouter's ``architecture.input_modalities`` (``file`` is PDF), LM Studio's ``type`` (``vlm`` reads images),
    Ollama's ``capabilities`` (``vision``, ``audio``)."""
    architecture = entry.get("architecture")
    if isinstance(architecture, Mapping) and isinstance(architecture.get("input_modalities"), list):
        kinds = {"pdf" if k == "file" else k for k in architecture["input_modalities"] if isinstance(k, str)}
        return ModelInputs.of(kinds, "provider")
    capabilities = entry.get("capabilities")
    if isinstance(capabilities, list) and all(isinstance(c, str) for c in capabilities):
        return ModelInputs.of({"image" if c == "vision" else c for c in capabilities}, "provider")
    kind = entry.get("type")
    if kind in ("vlm", "llm"):
        return ModelInputs(kind == "vlm", False, False, "provider")
    return None


def resolve(setting: Sequence[str] | None, provider: ModelInputs | None, table: ModelInputs | None) -> ModelInputs:
    """The first source that knows: the setting, the provider, the table; else text only."""
    if setting is not None:
        return ModelInputs.of(setting, "setting")
    return provider or table or ModelInputs()
