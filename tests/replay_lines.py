"""Builders for Gemini CLI ``--fake-responses`` lines used by the protocol and editor tests."""

from __future__ import annotations

from typing import Any


def text_line(*texts: str) -> dict[str, Any]:
    """One model response streaming ``texts`` as separate chunks."""
    chunks: list[dict[str, Any]] = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": t}]}}]} for t in texts
    ]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    chunks[-1]["usageMetadata"] = {"promptTokenCount": 20, "candidatesTokenCount": 5, "totalTokenCount": 25}
    return {"method": "generateContentStream", "response": chunks}


def call_line(
    name: str, args: dict[str, Any], *, thought: str | None = None, text: str | None = None
) -> dict[str, Any]:
    """One model response calling tool ``name``, after an optional thought and an optional text."""
    parts: list[dict[str, Any]] = []
    if thought:
        parts.append({"text": f"**{thought}**\n\nthinking about it", "thought": True})
    if text:
        parts.append({"text": text})
    parts.append({"functionCall": {"name": name, "args": args, "id": f"call-{name}"}})
    return {
        "method": "generateContentStream",
        "response": [
            {
                "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
                "usageMetadata": {"promptTokenCount": 20, "totalTokenCount": 23},
            }
        ],
    }
