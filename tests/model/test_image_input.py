"""What a model accepts besides text (model/inputs.py): the documented table per provider and family, what an
endpoint's description says (OpenRouter, LM Studio, Ollama), settings first, and the up-front refusal."""

from __future__ import annotations

import pytest

from agent_lsp.model.base import InlineData, Part
from agent_lsp.model.inputs import ModelInputs, from_description, resolve, table_inputs


@pytest.mark.parametrize(
    ("provider", "model", "image", "audio", "pdf"),
    [
        ("gemini", "gemini-2.5-flash", True, True, True),
        ("replay", "anything", True, True, True),
        ("openai", "gpt-4o-mini", True, False, True),
        ("openai", "gpt-4o-audio-preview", True, True, True),
        ("openai", "claude-sonnet-4", True, False, True),
        ("openai", "llama3.2-vision:11b", True, False, False),
        ("openai", "qwen2.5-vl-7b-instruct", True, False, False),
        ("openai", "qwen2.5-omni-7b", True, True, False),
        ("openai", "gemma-3-27b-it", True, False, False),
        ("openai", "gpt-3.5-turbo", False, False, False),
        ("openai", "o3-mini", False, False, False),
        ("openai", "deepseek-chat", False, False, False),
        ("openai", "qwen2.5-coder:7b", False, False, False),
        ("openai", "llama-3.1-8b-instruct", False, False, False),
        ("openai", "gpt-oss-20b", False, False, False),
    ],
)
def test_the_documented_table(provider: str, model: str, image: bool, audio: bool, pdf: bool) -> None:
    assert table_inputs(provider, model) == ModelInputs(image, audio, pdf, "table")


def test_a_family_the_table_does_not_know_reads_text_only_unless_someone_says() -> None:
    assert table_inputs("openai", "house-model") is None
    assert resolve(None, None, None) == ModelInputs(False, False, False, "unknown")
    assert resolve(["image"], None, None) == ModelInputs(True, False, False, "setting")


def test_what_endpoints_say() -> None:
    openrouter = {"id": "x", "architecture": {"input_modalities": ["text", "image", "file"]}}
    assert from_description(openrouter) == ModelInputs(True, False, True, "provider")
    assert from_description({"id": "y", "type": "vlm"}) == ModelInputs(True, False, False, "provider")  # LM Studio
    assert from_description({"type": "llm"}) == ModelInputs(False, False, False, "provider")
    ollama = {"capabilities": ["completion", "vision", "tools"]}
    assert from_description(ollama) == ModelInputs(True, False, False, "provider")
    assert from_description({"id": "z", "object": "model"}) is None  # says nothing


def test_settings_beat_the_provider_which_beats_the_table() -> None:
    said = ModelInputs(True, False, False, "provider")
    table = ModelInputs(False, True, False, "table")
    assert resolve(["audio", "pdf"], said, table) == ModelInputs(False, True, True, "setting")
    assert resolve(None, said, table) is said
    assert resolve(None, None, table) is table


def test_refusal_names_the_kind_and_the_setting() -> None:
    wav = Part(inline_data=InlineData("audio/wav", b"RIFF"))
    ogg = Part(inline_data=InlineData("audio/ogg", b"OggS"))
    pdf = Part(inline_data=InlineData("application/pdf", b"%PDF"))
    text_only = ModelInputs(source="unknown")
    refused = text_only.refused([Part(text="hi"), wav], "openai", "house-model")
    assert refused is not None and "does not take audio" in refused and "model.models.house-model.inputs" in refused
    assert ModelInputs(audio=True).refused([wav], "openai", "m") is None
    assert "WAV or MP3" in (ModelInputs(audio=True).refused([ogg], "openai", "m") or "")
    assert ModelInputs(audio=True).refused([ogg], "gemini", "m") is None
    assert "PDF documents" in (ModelInputs(image=True).refused([pdf], "openai", "m") or "")
