"""The ``wait_for_previous`` parameter Gemini CLI 0.61 adds to the tools that keep its generic schema."""

from __future__ import annotations

from typing import Any

WAIT_FOR_PREVIOUS = "wait_for_previous"
_WAIT: dict[str, Any] = {
    "type": "boolean",
    "description": "True: start only after every earlier call of this turn has finished (this call needs their "
    "results). False or left out: may run alongside them.",
}


def with_wait_for_previous(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with ``wait_for_previous`` added to its properties (never required)."""
    return {**schema, "properties": {**schema.get("properties", {}), WAIT_FOR_PREVIOUS: _WAIT}}
