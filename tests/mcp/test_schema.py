"""repair_schema: MCP input schemas made acceptable to Gemini function declarations."""

from __future__ import annotations

import json
from typing import Any

from agent_lsp.mcp.schema import repair_schema


def keys_anywhere(schema: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(schema, dict):
        for key, value in schema.items():
            found.add(key)
            found |= keys_anywhere(value)
    elif isinstance(schema, list):
        for value in schema:
            found |= keys_anywhere(value)
    return found


def test_plain_schema_passes_through_unchanged_but_copied() -> None:
    src = {"type": "object", "properties": {"a": {"type": "integer", "description": "A"}}, "required": ["a"]}
    out = repair_schema(src)
    assert out == src
    assert out is not src
    out["properties"]["a"]["type"] = "string"  # type: ignore[index]
    assert src["properties"]["a"]["type"] == "integer"  # type: ignore[index]


def test_missing_or_empty_schema_becomes_an_empty_object() -> None:
    assert repair_schema(None) == {"type": "object", "properties": {}}
    assert repair_schema({}) == {"type": "object", "properties": {}}
    assert repair_schema({"properties": {"x": {"type": "string"}}}) == {
        "type": "object",
        "properties": {"x": {"type": "string"}},
    }


def test_unrepairable_roots_give_none() -> None:
    assert repair_schema({"type": "string"}) is None
    assert repair_schema({"type": "array", "items": {"type": "string"}}) is None
    assert repair_schema(["not", "a", "schema"]) is None
    assert repair_schema(False) is None


def test_refs_to_defs_are_inlined_and_meta_keys_dropped() -> None:
    src = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:x",
        "type": "object",
        "properties": {
            "point": {"$ref": "#/$defs/Point", "description": "where"},
            "old": {"$ref": "#/definitions/Old"},
        },
        "required": ["point", "ghost"],
        "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}},
        "definitions": {"Old": {"type": "string", "examples": ["a"]}},
        "additionalProperties": False,
    }
    out = repair_schema(src)
    assert out is not None
    assert {"$ref", "$defs", "definitions", "$schema", "$id", "examples"}.isdisjoint(keys_anywhere(out))
    assert out["properties"]["point"] == {
        "description": "where",
        "type": "object",
        "properties": {"x": {"type": "integer"}},
        "required": ["x"],
    }
    assert out["properties"]["old"] == {"type": "string"}
    assert out["required"] == ["point"]  # a required name with no property would be rejected
    assert out["additionalProperties"] is False


def test_recursive_ref_stops_with_a_typed_node() -> None:
    src = {
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "value": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                },
            }
        },
    }
    out = repair_schema(src)
    assert out is not None
    tree = out["properties"]["tree"]
    assert tree["properties"]["value"] == {"type": "string"}
    assert tree["properties"]["children"]["items"] == {"type": "object"}
    json.dumps(out)  # finite


def test_unresolvable_and_remote_refs_are_dropped() -> None:
    out = repair_schema(
        {
            "type": "object",
            "properties": {
                "a": {"$ref": "https://example.com/schema.json", "description": "remote"},
                "b": {"$ref": "#/$defs/Missing", "type": "string"},
            },
        }
    )
    assert out == {"type": "object", "properties": {"a": {"description": "remote"}, "b": {"type": "string"}}}


def test_type_lists_optional_unions_and_one_of() -> None:
    out = repair_schema(
        {
            "type": "object",
            "properties": {
                "maybe": {"type": ["string", "null"]},
                "either": {"type": ["string", "integer"]},
                "optional": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
                "choice": {"oneOf": [{"type": "string"}, {"type": "boolean"}]},
            },
        }
    )
    assert out is not None
    props = out["properties"]
    assert props["maybe"] == {"type": "string", "nullable": True}
    assert props["either"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert props["optional"] == {"type": "integer", "nullable": True}
    assert props["choice"] == {"anyOf": [{"type": "string"}, {"type": "boolean"}]}
    assert "oneOf" not in keys_anywhere(out)


def test_all_of_is_merged_and_required_may_name_merged_properties() -> None:
    out = repair_schema(
        {
            "allOf": [
                {"$ref": "#/$defs/Base"},
                {"type": "object", "properties": {"extra": {"type": "boolean"}}},
            ],
            "required": ["id", "extra"],
            "$defs": {"Base": {"type": "object", "properties": {"id": {"type": "string"}}}},
        }
    )
    assert out == {
        "type": "object",
        "properties": {"id": {"type": "string"}, "extra": {"type": "boolean"}},
        "required": ["id", "extra"],
    }


def test_const_enum_formats_and_unknown_keywords() -> None:
    out = repair_schema(
        {
            "type": "object",
            "properties": {
                "mode": {"const": "fast"},
                "level": {"enum": [1, 2, 3]},
                "mixed": {"enum": ["a", {"b": 1}]},
                "when": {"type": "string", "format": "date-time"},
                "link": {"type": "string", "format": "uri", "pattern": "^https://"},
                "n": {"type": "number", "exclusiveMinimum": 0, "maximum": 10, "multipleOf": 2},
                "x": {"type": "string", "x-mcp-header": "X-Thing", "readOnly": True},
            },
            "patternProperties": {"^x": {"type": "string"}},
        }
    )
    assert out is not None
    props = out["properties"]
    assert props["mode"] == {"enum": ["fast"], "type": "string"}
    assert props["level"] == {"enum": [1, 2, 3], "type": "number"}
    assert props["mixed"] == {}
    assert props["when"] == {"type": "string", "format": "date-time"}
    assert props["link"] == {"type": "string", "pattern": "^https://"}
    assert props["n"] == {"type": "number", "maximum": 10, "minimum": 0}
    assert props["x"] == {"type": "string"}
    assert "patternProperties" not in out


def test_boolean_subschemas_and_tuple_items() -> None:
    out = repair_schema(
        {
            "type": "object",
            "properties": {
                "anything": True,
                "never": False,
                "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
                "list": {"type": "array", "items": True},
            },
        }
    )
    assert out is not None
    props = out["properties"]
    assert props["anything"] == {}
    assert "never" not in props
    assert props["pair"] == {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}
    assert props["list"] == {"type": "array", "items": {}}


def test_root_union_and_nullability_are_removed() -> None:
    out = repair_schema({"type": ["object", "null"], "properties": {"a": {"type": "string"}}})
    assert out == {"type": "object", "properties": {"a": {"type": "string"}}}


def test_ref_explosion_is_refused() -> None:
    # Each level refers to the next one twice: inlining would double at every step.
    defs = {
        f"L{i}": {
            "type": "object",
            "properties": {"a": {"$ref": f"#/$defs/L{i + 1}"}, "b": {"$ref": f"#/$defs/L{i + 1}"}},
        }
        for i in range(30)
    }
    defs["L30"] = {"type": "string"}
    assert repair_schema({"type": "object", "properties": {"root": {"$ref": "#/$defs/L0"}}, "$defs": defs}) is None
