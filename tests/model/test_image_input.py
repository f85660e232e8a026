"""Which models read images (model/catalog.py ``takes_images``): every Gemini model; an OpenAI-compatible model by
its family, None when the family is not known."""

from __future__ import annotations

import pytest

from agent_lsp.model.catalog import takes_images


@pytest.mark.parametrize(
    ("provider", "model", "expected"),
    [
        ("gemini", "gemini-2.5-flash", True),
        ("replay", "anything", True),
        ("openai", "gpt-4o-mini", True),
        ("openai", "claude-sonnet-4", True),
        ("openai", "llama3.2-vision:11b", True),
        ("openai", "qwen2.5-vl-7b-instruct", True),
        ("openai", "gemma-3-27b-it", True),
        ("openai", "gpt-3.5-turbo", False),
        ("openai", "o3-mini", False),
        ("openai", "deepseek-chat", False),
        ("openai", "qwen2.5-coder:7b", False),
        ("openai", "llama-3.1-8b-instruct", False),
        ("openai", "gpt-oss-20b", False),
        ("openai", "house-model", None),
    ],
)
def test_takes_images(provider: str, model: str, expected: bool | None) -> None:
    assert takes_images(provider, model) is expected
