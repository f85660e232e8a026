"""Building google-genai's pydantic validators ahead of the first request (GeminiClient.warm runs this)."""

from __future__ import annotations

import contextlib
import importlib

# The SDK's pydantic models a request and its answer validate; pydantic builds each one's validator on first
# use (~0.1 s together here), so warm() builds them ahead. One is private to the SDK, hence looked up by name.
WARM_MODELS = (
    "HttpOptions",
    "GenerateContentConfig",
    "Tool",
    "FunctionDeclaration",
    "ThinkingConfig",
    "Content",
    "Part",
    "_GenerateContentParameters",
    "GenerateContentResponse",
    "Candidate",
    "HttpResponse",
    "CountTokensConfig",
)


def warm_validators() -> None:
    """Build the validators of :data:`WARM_MODELS` now rather than during the first request."""
    # Imported here, not at the top: importing this package must not load the SDK (start-up budget).
    from google.genai import types

    for name in WARM_MODELS:
        model = getattr(types, name, None)
        if model is not None:
            model.model_rebuild()
    # The HTTP stack loads anyio's asyncio backend at the first connection (~30 ms of imports).
    with contextlib.suppress(ImportError):
        importlib.import_module("anyio._backends._asyncio")
