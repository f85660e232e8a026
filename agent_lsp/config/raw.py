"""Raw settings dicts before validation: $VAR expansion, the layer merge rule, and dotted-path access."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

Raw = dict[str, Any]

# Under these paths a later layer's entry replaces the earlier one whole (an MCP or language server is one unit).
_SHALLOW = {("mcpServers",), ("lspServers",)}

_ENV_REF = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def expand_env(value: Any, env: Mapping[str, str]) -> Any:
    """``$VAR`` and ``${VAR}`` in every string value; unknown variables are left as written."""
    if isinstance(value, str):

        def sub(m: re.Match[str]) -> str:
            name = m.group(1) or m.group(2)
            return env.get(name, m.group(0))

        return _ENV_REF.sub(sub, value)
    if isinstance(value, dict):
        return {k: expand_env(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [expand_env(v, env) for v in value]
    return value


def deep_merge(base: Raw, top: Mapping[str, Any], _path: tuple[str, ...] = ()) -> Raw:
    """New dict: ``top`` over ``base``. Dicts merge, lists and scalars replace, ``null`` means "not set here"."""
    merged = dict(base)
    for key, value in top.items():
        if value is None:
            continue
        here = (*_path, key)
        old = merged.get(key)
        if here[0] == "hooks" and len(here) == 2 and isinstance(value, list) and isinstance(old, list):
            merged[key] = [*old, *value]  # Gemini CLI runs every layer's hooks for an event, not the top one's
        elif here == ("skills", "disabled") and isinstance(value, list) and isinstance(old, list):
            merged[key] = [*old, *(v for v in value if v not in old)]  # disabled anywhere: disabled
        elif isinstance(value, dict) and isinstance(old, dict) and here not in _SHALLOW:
            merged[key] = deep_merge(old, value, here)
        elif isinstance(value, dict) and isinstance(old, dict):
            merged[key] = {**old, **value}
        else:
            merged[key] = value
    return merged


def set_path(raw: Raw, dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    node = raw
    for p in parents:
        child = node.get(p)
        if not isinstance(child, dict):
            child = {}
            node[p] = child
        node = child
    node[last] = value


def get_path(raw: Mapping[str, Any], keys: Sequence[str]) -> Any:
    node: Any = raw
    for k in keys:
        if not isinstance(node, dict) or k not in node:
            return None
        node = node[k]
    return node


def pop_path(raw: Raw, keys: Sequence[str]) -> None:
    parent = get_path(raw, keys[:-1]) if len(keys) > 1 else raw
    if isinstance(parent, dict):
        parent.pop(keys[-1], None)


def prune_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: prune_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [prune_none(v) for v in value]
    return value
