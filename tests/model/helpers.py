"""Small builders shared by the model tests (requests and scripted Gemini chunks)."""

from __future__ import annotations

from typing import Any

from agent_lsp.model.base import Content, GenerateRequest, Part

TEST_KEY = "test-key-Zq81x"  # a fake secret: tests assert it never leaks into messages


def make_request(model: str = "gemini-2.5-pro", text: str = "hello", **kwargs: Any) -> GenerateRequest:
    return GenerateRequest(model=model, contents=(Content("user", (Part(text=text),)),), **kwargs)


def text_chunk(text: str, **extra: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text}]}}
    candidate.update(extra)
    return {"candidates": [candidate]}


def text_stream(*texts: str) -> list[dict[str, Any]]:
    """A stream of text chunks; the last one carries finishReason STOP."""
    chunks = [text_chunk(t) for t in texts]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    return chunks
