"""Reading an ``agent/*`` request's params, and the error that becomes its JSON-RPC error answer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_lsp.adapters.wire import CODES
from agent_lsp.vocabulary import ErrorMeaning


class RequestError(Exception):
    """Becomes a JSON-RPC error answer; ``meaning`` is the shared vocabulary's, its code from ``wire.CODES``."""

    def __init__(self, meaning: ErrorMeaning, message: str) -> None:
        super().__init__(message)
        self.meaning = meaning
        self.code = CODES[meaning]


def opt_str(params: Mapping[str, Any], key: str) -> str | None:
    """An optional string field (empty counts as absent); any other type is invalid params naming the field."""
    value = params.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise RequestError("invalid_params", f"{key} must be a string")
    return value


def opt_int(params: Mapping[str, Any], key: str, default: int) -> int:
    value = params.get(key)
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise RequestError("invalid_params", f"{key} must be a positive integer")
    return value


def session_id(params: Mapping[str, Any]) -> str:
    value = params.get("sessionId")
    if not isinstance(value, str):
        raise RequestError("invalid_params", "sessionId is required and must be a string")
    return value
