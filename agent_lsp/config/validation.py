"""Per-key validation of one settings layer: a rejected key is dropped with an error naming file, key and reason."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from agent_lsp.config.raw import Raw, get_path, pop_path
from agent_lsp.config.settings import Settings
from agent_lsp.errors import ConfigError


def _describe(value: Any) -> str:
    kind = {bool: "boolean", int: "number", float: "number", str: "string", list: "array", dict: "object"}.get(
        type(value), type(value).__name__
    )
    shown = json.dumps(value, default=str)
    return f"{kind} {shown[:60]}{'…' if len(shown) > 60 else ''}"


def _error_keys(clean: Raw, loc: Sequence[int | str]) -> list[str]:
    """The dict keys of ``loc`` that exist in ``clean``: pydantic adds union member names and list indexes."""
    keys: list[str] = []
    node: Any = clean
    for part in loc:
        if not (isinstance(part, str) and isinstance(node, dict) and part in node):
            break
        keys.append(part)
        node = node[part]
    return keys


def validate_layer(raw: Raw, label: str, as_written: Raw | None = None) -> tuple[Raw, list[ConfigError]]:
    """Drop every key the Settings model rejects (a bad MCP server entry is dropped whole); one error each.

    Messages quote ``as_written`` (the layer before $VAR expansion) so an expanded secret never shows."""
    errors: list[ConfigError] = []
    if not raw:
        return {}, errors  # nothing to check (most layers: absent files); spares building the validators
    clean = copy.deepcopy(raw)  # private copy we may prune
    for _ in range(20):
        try:
            Settings.model_validate(clean)
            return clean, errors
        except ValidationError as exc:
            to_drop: dict[tuple[str, ...], str] = {}
            for err in exc.errors():
                keys = _error_keys(clean, err["loc"])
                if not keys:
                    errors.append(ConfigError(f"{err['msg']}; the whole file was skipped", file=label))
                    return {}, errors
                where = tuple(keys[:2]) if keys[0] in ("mcpServers", "lspServers") else tuple(keys)
                if where in to_drop:
                    continue  # a union reports once per member type; one message is enough
                inner = ".".join(keys[len(where) :])
                got = _describe(get_path(clean if as_written is None else as_written, keys))
                to_drop[where] = (
                    f"{inner}: {err['msg']} (got {got}); server entry ignored"
                    if inner
                    else f"{err['msg']} (got {got}); key ignored"
                )
            for where, message in to_drop.items():
                errors.append(ConfigError(message, file=label, key=".".join(where)))
                pop_path(clean, where)
    errors.append(ConfigError("settings could not be validated; the file was skipped", file=label))
    return {}, errors
