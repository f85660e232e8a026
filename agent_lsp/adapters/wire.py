"""What both servers accept off the wire: size and depth limits, JSON decoding, the JSON-RPC 2.0 envelope check.

Stdlib only (both servers import it before answering ``initialize``). ``decode`` turns one frame's bytes into
either a message whose envelope is sound or a ``Rejection`` saying which error to answer, with which id, or
that nothing may be answered (a notification, or an answer from the client).
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False  # typing itself is not imported before initialize is answered
if TYPE_CHECKING:
    from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
AUTH_REQUIRED = -32000  # ACP's code for "authenticate first"; we use it for missing credentials on both servers
NOT_FOUND = -32002  # ACP's resource_not_found
REQUEST_CANCELLED = -32800  # LSP's RequestCancelled, which ACP adopted

# The one table from ``vocabulary.ErrorMeaning`` to JSON-RPC codes, for both servers.
CODES: dict[str, int] = {
    "parse_error": PARSE_ERROR,
    "invalid_request": INVALID_REQUEST,
    "method_not_found": METHOD_NOT_FOUND,
    "invalid_params": INVALID_PARAMS,
    "internal": INTERNAL_ERROR,
    "auth_required": AUTH_REQUIRED,
    "not_found": NOT_FOUND,
    "busy": INVALID_REQUEST,  # a second prompt while one runs is a request this state cannot take
    "cancelled": REQUEST_CANCELLED,
}

MAX_FRAME_ENV = "AGENT_LSP_MAX_FRAME_BYTES"
DEFAULT_MAX_FRAME = 64 << 20  # room for a big document or a few pasted images; more is a broken client
MAX_DEPTH = 100  # no message of either protocol nests deeper than ~10; deeper input is hostile or broken


def max_frame_bytes() -> int:
    """The largest frame either server reads (``AGENT_LSP_MAX_FRAME_BYTES`` overrides the 64 MiB default)."""
    raw = os.environ.get(MAX_FRAME_ENV, "").strip()
    try:
        value = int(raw) if raw else DEFAULT_MAX_FRAME
    except ValueError:
        return DEFAULT_MAX_FRAME
    return value if value > 0 else DEFAULT_MAX_FRAME


class Rejection:
    """A frame that cannot be handled: answer ``code``/``message`` to ``id`` when ``answer`` is true."""

    __slots__ = ("answer", "code", "id", "message")

    def __init__(self, rid: int | str | None, code: int, message: str, answer: bool = True) -> None:
        self.id = rid
        self.code = code
        self.message = message
        self.answer = answer

    def __repr__(self) -> str:
        return f"Rejection({self.id!r}, {self.code}, {self.message!r}, answer={self.answer})"


def valid_id(value: object) -> bool:
    return value is None or (isinstance(value, int | str) and not isinstance(value, bool))


def is_notification(message: dict[str, Any]) -> bool:
    return "id" not in message and isinstance(message.get("method"), str)


def decode(body: bytes) -> dict[str, Any] | Rejection:
    """One frame's bytes → a message with a sound envelope, or what to answer instead."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError) as exc:  # ValueError covers bad UTF-8 and bad JSON
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        return Rejection(None, PARSE_ERROR, f"Parse error: {reason}")
    return check(message)


def too_big(size: int, limit: int) -> Rejection:
    return Rejection(None, PARSE_ERROR, f"Parse error: a frame of {size} bytes or more exceeds the {limit}-byte limit")


def check(message: Any) -> dict[str, Any] | Rejection:
    """The JSON-RPC 2.0 envelope rules (batches are not part of either protocol)."""
    if isinstance(message, list):
        return Rejection(None, INVALID_REQUEST, "Invalid request: batches are not supported")
    if not isinstance(message, dict):
        return Rejection(None, INVALID_REQUEST, "Invalid request: a frame must be a JSON object")
    has_id = "id" in message
    rid = message.get("id")
    if not valid_id(rid):
        return Rejection(None, INVALID_REQUEST, "Invalid request: id must be a number or a string")
    method = message.get("method")
    notification = not has_id and isinstance(method, str)
    if method is None and has_id and ("result" in message or "error" in message):
        return message  # an answer to one of our requests (unknown ids are the connection's business)
    if method is None:
        return Rejection(rid, INVALID_REQUEST, "Invalid request: no method")
    if not isinstance(method, str):
        return Rejection(rid, INVALID_REQUEST, "Invalid request: method must be a string")
    if message.get("jsonrpc") != "2.0":
        return Rejection(rid, INVALID_REQUEST, 'Invalid request: jsonrpc must be "2.0"', answer=not notification)
    params = message.get("params")
    if params is not None and not isinstance(params, dict | list):
        return Rejection(rid, INVALID_PARAMS, "Invalid params: params must be an object", answer=not notification)
    if params is not None and _deeper_than(params, MAX_DEPTH - 1):
        why = f"Invalid params: nested deeper than {MAX_DEPTH} levels"
        return Rejection(rid, INVALID_PARAMS, why, answer=not notification)
    return message


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether containers nest more than ``limit`` levels (iterative: deep input must not recurse here)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, dict | list))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, dict | list))
    return False
