"""Repair an MCP tool's inputSchema into the JSON-schema subset Gemini function declarations accept."""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger(__name__)

_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})
# Formats Gemini is known to take; others (uri, email, uuid …) have made requests fail, so they go.
_FORMATS = frozenset({"date-time", "date", "time", "int32", "int64", "float", "double", "enum"})
_NUMBER_KEYS = (
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
)
_MAX_DEPTH = 32
# $refs can fan out (a shared definition used many times); past this many nodes the schema is not worth sending.
_MAX_NODES = 5000


class _TooBig(Exception):
    pass


def repair_schema(schema: Any) -> dict[str, Any] | None:
    """A copy of ``schema`` Gemini will accept as function parameters, or None when it cannot be made into one.

    Local ``$ref``s are inlined (a cycle becomes a plain typed node), ``oneOf`` becomes ``anyOf``, ``allOf`` is
    merged, ``type`` lists become ``nullable``/``anyOf``, unknown keywords are dropped, and the root is made an
    object with ``properties``. The input is never modified.
    """
    if schema is None or schema is True:
        return {"type": "object", "properties": {}}
    if not isinstance(schema, dict):
        return None
    try:
        root = _Repairer(schema).node(schema, 0, frozenset())
    except _TooBig:
        logger.warning("MCP tool schema is too large to send after inlining $refs")
        return None
    if root is None:
        return None
    kind = root.get("type")
    if kind is None:
        root["type"] = "object"
    elif kind != "object":
        return None
    props = root.setdefault("properties", {})
    if not isinstance(props, dict):
        return None
    # A union or nullability at the top cannot be expressed as a function's parameter list.
    root.pop("anyOf", None)
    root.pop("nullable", None)
    return root


class _Repairer:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.nodes = 0

    def resolve(self, ref: str) -> Any:
        """The target of a local JSON pointer ``#/…``; None for anything else or a dangling pointer."""
        if not ref.startswith("#"):
            return None
        target: Any = self.root
        for raw in ref[1:].split("/")[1:] if ref != "#" else []:
            key = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and key in target:
                target = target[key]
            elif isinstance(target, list) and key.isdigit() and int(key) < len(target):
                target = target[int(key)]
            else:
                return None
        return target

    def node(self, schema: Any, depth: int, refs: frozenset[str]) -> dict[str, Any] | None:
        """The repaired node; ``{}`` means any value, None means no value is allowed (``false``)."""
        self.nodes += 1
        if self.nodes > _MAX_NODES:
            raise _TooBig
        if schema is False:
            return None
        if not isinstance(schema, dict) or depth > _MAX_DEPTH:
            return {}
        src = dict(schema)
        ref = src.pop("$ref", None)
        if isinstance(ref, str):
            target = self.resolve(ref)
            if isinstance(target, dict) and ref not in refs:
                # Siblings of $ref (often a description) refine the target, so they win.
                return self.node({**target, **src}, depth + 1, refs | {ref})
            if isinstance(target, dict) and isinstance(target.get("type"), str):
                # A recursive reference: stop here, keeping only what kind of value it is.
                src.setdefault("type", target["type"])
            elif target is None:
                logger.debug("dropping unresolvable $ref %r", ref)

        out: dict[str, Any] = {}
        self._copy_scalars(src, out)
        self._set_type(src.get("type"), out)
        self._set_enum(src, out)

        props = src.get("properties")
        if isinstance(props, dict):
            repaired: dict[str, Any] = {}
            for name, sub in props.items():
                fixed = self.node(sub, depth + 1, refs)
                if fixed is not None:
                    repaired[str(name)] = fixed
            out["properties"] = repaired
        items = src.get("items")
        if isinstance(items, list):
            items = {"anyOf": items} if len(items) != 1 else items[0]
        if items is not None:
            fixed_items = self.node(items, depth + 1, refs)
            out["items"] = fixed_items if fixed_items is not None else {}
        extra = src.get("additionalProperties")
        if isinstance(extra, bool):
            out["additionalProperties"] = extra
        elif isinstance(extra, dict):
            out["additionalProperties"] = self.node(extra, depth + 1, refs) or {}

        for branch in src.get("allOf") or []:
            fixed = self.node(branch, depth + 1, refs)
            if fixed is not None:
                _merge(out, fixed)
        union = src.get("anyOf") if isinstance(src.get("anyOf"), list) else src.get("oneOf")
        if isinstance(union, list):
            self._set_union(union, out, depth, refs)
        # Last, so names that only allOf/anyOf branches define still count as known properties.
        own = src.get("required")
        required = [*out.pop("required", []), *(own if isinstance(own, list) else [])]
        known = out.get("properties")
        if isinstance(known, dict):
            names = [r for r in required if isinstance(r, str) and r in known]
            if names:
                out["required"] = list(dict.fromkeys(names))
        return out

    def _copy_scalars(self, src: dict[str, Any], out: dict[str, Any]) -> None:
        for key in ("title", "description", "pattern"):
            if isinstance(src.get(key), str):
                out[key] = src[key]
        for key in _NUMBER_KEYS:
            value = src.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                out[key] = value
        # Draft-6 numeric exclusive bounds have no Gemini equivalent; the inclusive bound is the nearest thing.
        for exclusive, inclusive in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            value = src.get(exclusive)
            if isinstance(value, int | float) and not isinstance(value, bool) and inclusive not in out:
                out[inclusive] = value
        fmt = src.get("format")
        if isinstance(fmt, str) and fmt in _FORMATS:
            out["format"] = fmt
        if "default" in src and isinstance(src["default"], str | int | float | bool | list | dict):
            out["default"] = src["default"]
        if src.get("nullable") is True:
            out["nullable"] = True
        order = src.get("propertyOrdering")
        if isinstance(order, list) and all(isinstance(x, str) for x in order):
            out["propertyOrdering"] = list(order)

    def _set_type(self, kind: Any, out: dict[str, Any]) -> None:
        if isinstance(kind, str):
            if kind == "null":
                out["nullable"] = True
            elif kind in _TYPES:
                out["type"] = kind
            return
        if isinstance(kind, list):
            kinds = [k for k in kind if isinstance(k, str) and k in _TYPES and k != "null"]
            if "null" in kind:
                out["nullable"] = True
            if len(kinds) == 1:
                out["type"] = kinds[0]
            elif kinds:
                out["anyOf"] = [{"type": k} for k in dict.fromkeys(kinds)]

    def _set_enum(self, src: dict[str, Any], out: dict[str, Any]) -> None:
        values = src.get("enum")
        if not isinstance(values, list) and "const" in src:
            values = [src["const"]]
        if not isinstance(values, list):
            return
        if None in values:
            out["nullable"] = True
        kept = [v for v in values if isinstance(v, str | int | float) and not isinstance(v, bool)]
        if kept and len(kept) == len([v for v in values if v is not None]):
            out["enum"] = kept
            if "type" not in out and "type" not in src:
                out["type"] = "string" if all(isinstance(v, str) for v in kept) else "number"

    def _set_union(self, union: list[Any], out: dict[str, Any], depth: int, refs: frozenset[str]) -> None:
        branches: list[dict[str, Any]] = []
        for branch in union:
            fixed = self.node(branch, depth + 1, refs)
            if fixed is None:
                continue
            if fixed.get("type") is None and fixed.get("nullable") and len(fixed) <= 2:
                out["nullable"] = True  # the {"type": "null"} arm of an Optional
                continue
            branches.append(fixed)
        if len(branches) == 1:
            _merge(out, branches[0])
        elif branches:
            out["anyOf"] = branches


def _merge(into: dict[str, Any], other: dict[str, Any]) -> None:
    """Fold ``other`` into ``into``: properties and required combine, other keys keep their first value."""
    for key, value in other.items():
        if key == "properties" and isinstance(into.get("properties"), dict):
            into["properties"] = {**value, **into["properties"]}
        elif key == "required" and isinstance(into.get("required"), list):
            into["required"] = list(dict.fromkeys([*into["required"], *value]))
        else:
            into.setdefault(key, value)
