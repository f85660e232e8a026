"""Validate payloads against a ``$defs`` type of the ACP v1 JSON Schema in ../shared/acp/schema.json."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema


def schema_path() -> Path:
    env = os.environ.get("ACP_SCHEMA")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "shared" / "acp" / "schema.json"
        if candidate.exists():
            return candidate
        candidate = parent.parent / "shared" / "acp" / "schema.json"
        if candidate.exists():
            return candidate
    raise FileNotFoundError("ACP schema not found: expected ../shared/acp/schema.json beside the repository")


@cache
def _schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(schema_path().read_text())
    return data


@cache
def _validator(def_name: str) -> jsonschema.Draft202012Validator:
    schema = dict(_schema())
    schema_ref = {"$ref": f"#/$defs/{def_name}", "$defs": schema["$defs"]}
    return jsonschema.Draft202012Validator(schema_ref)


def validate(def_name: str, payload: Any) -> None:
    """Raise jsonschema.ValidationError (with the path) if ``payload`` is not a valid ``def_name``."""
    errors = sorted(_validator(def_name).iter_errors(payload), key=lambda e: list(e.path))
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        raise AssertionError(f"{def_name} invalid at {list(best.path)}: {best.message}\npayload: {payload}")
