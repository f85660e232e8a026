"""What both SDK clients need to turn an HTTP failure into a readable error: Retry-After, durations, one clean line."""

from __future__ import annotations

import time
from typing import Any

_MAX_MESSAGE = 300
# Exceptions these libraries raise for URLs we built, not for the network: a bug, never retried.
_NOT_NETWORK = frozenset({"InvalidURL", "UnsupportedProtocol", "CookieConflict"})


def is_network_error(exc: BaseException, transport_modules: tuple[str, ...]) -> bool:
    """Whether ``exc`` is a connection/transport failure (retryable) rather than a bug.

    The SDKs pick their HTTP stack at run time, so the stack's exceptions are recognised by the top-level
    module they come from (``transport_modules``) instead of importing each library."""
    if isinstance(exc, ConnectionError | TimeoutError | OSError):
        return True
    root = type(exc).__module__.split(".", 1)[0]
    return root in transport_modules and type(exc).__name__ not in _NOT_NETWORK


def one_line(text: str, secret: str | None) -> str:
    """One readable line: no ``secret`` (the API key), no HTML, no JSON dump, bounded length."""
    if secret:
        text = text.replace(secret, "***")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    line = lines[0] if lines else ""
    if line.startswith(("<", "{", "[")):
        return ""
    line = " ".join(line.split())
    return line if len(line) <= _MAX_MESSAGE else line[: _MAX_MESSAGE - 1] + "…"


def parse_retry_after_header(value: str) -> float | None:
    """``Retry-After`` as seconds: a number, or an HTTP date (seconds from now, never negative)."""
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils  # imported here: ~2 ms on the way to a ready session, for a header seldom in date form

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def parse_duration(value: Any) -> float | None:
    """A protobuf Duration as seconds: JSON form ``"7s"`` / ``"1.5s"`` or ``{"seconds", "nanos"}``."""
    if isinstance(value, str) and value.strip().endswith("s"):
        try:
            return max(0.0, float(value.strip()[:-1]))
        except ValueError:
            return None
    if isinstance(value, dict):
        try:
            return max(0.0, float(value.get("seconds") or 0) + float(value.get("nanos") or 0) / 1e9)
        except (TypeError, ValueError):
            return None
    return None
