"""google-genai's GenerateContentResponse as our ModelChunk, through the one REST codec (wire.chunk_from_json)."""

from __future__ import annotations

import base64
from typing import Any

from agent_lsp.model import wire
from agent_lsp.model.base import ModelChunk


def response_to_chunk(response: Any) -> ModelChunk:
    """An SDK GenerateContentResponse as our ModelChunk, through wire.chunk_from_json."""
    data: dict[str, Any] = response.model_dump(
        mode="json", exclude_none=True, exclude={"sdk_http_response", "automatic_function_calling_history"}
    )
    # Pydantic dumps bytes as URL-safe base64; Gemini and our JSONL use the standard alphabet, and a
    # signature must go back exactly as it came, so re-encode from the raw bytes.
    for cand_data, cand in zip(data.get("candidates") or [], response.candidates or [], strict=False):
        content = getattr(cand, "content", None)
        parts = getattr(content, "parts", None) or []
        for part_data, part in zip((cand_data.get("content") or {}).get("parts") or [], parts, strict=False):
            if part.thought_signature is not None:
                part_data["thought_signature"] = base64.b64encode(part.thought_signature).decode("ascii")
            if part.inline_data is not None and part.inline_data.data is not None:
                part_data["inline_data"]["data"] = base64.b64encode(part.inline_data.data).decode("ascii")
    return wire.chunk_from_json(data)
