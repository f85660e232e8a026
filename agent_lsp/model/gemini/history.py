"""Each history entry's Gemini REST JSON, converted once per client and kept while the entry is in the history."""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import Sequence
from typing import Any

from agent_lsp.model import wire
from agent_lsp.model.base import Content

log = logging.getLogger(__name__)


class WireCache:
    """Each history entry's REST JSON, converted once rather than on every request.

    History entries are immutable and live as long as the session's history, so a turn at prompt 200
    otherwise re-converted ~400 entries (``wire.content_to_json`` + :func:`wire_content`) each time.
    Keyed by identity (the entry is kept with its JSON, so an id cannot be reused while cached); entries
    no longer in the history (after compression) are dropped when the cache grows past twice its size.
    The JSON is shared between requests, so nothing downstream may modify it (nothing does: it is
    serialised as is).
    """

    def __init__(self) -> None:
        self._json: dict[int, tuple[Content, dict[str, Any]]] = {}

    def contents(self, history: Sequence[Content]) -> list[dict[str, Any]]:
        cache = self._json
        out: list[dict[str, Any]] = []
        for content in history:
            hit = cache.get(id(content))
            if hit is None or hit[0] is not content:
                hit = cache[id(content)] = (content, wire_content(wire.content_to_json(content)))
            out.append(hit[1])
        if len(cache) > 2 * len(history) + 64:
            self._json = {id(c): cache[id(c)] for c in history}
        return out


def wire_content(content: dict[str, Any]) -> dict[str, Any]:
    """A REST content as sent: a thought signature that is not base64 is dropped (the API would refuse it)."""
    parts = content.get("parts") or []
    if not any("thoughtSignature" in part for part in parts):
        return content
    kept = []
    for part in parts:
        signature = part.get("thoughtSignature")
        if signature is not None and b64_bytes(signature) is None:
            log.warning("dropping a thought signature that is not base64 (%d characters)", len(signature))
            part = {k: v for k, v in part.items() if k != "thoughtSignature"}
        kept.append(part)
    return {"role": content["role"], "parts": kept}


def b64_bytes(value: str) -> bytes | None:
    """``value`` decoded as standard or URL-safe base64 (padding optional), or None if it is neither."""
    text = value.strip()
    text += "=" * (-len(text) % 4)
    try:
        if "-" in text or "_" in text:
            return base64.b64decode(text, altchars=b"-_", validate=True)
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
