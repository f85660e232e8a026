"""Validate payloads against a ``$defs`` type of the ACP v1 JSON Schema shipped in the ACP SDK's npm package."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

# Every ACP frame checker the running test made (tests/acp/harness.py's SchemaChecker adds itself): tests/conftest.py
# fails the test on any problem one of them found, so no test that speaks ACP can forget to ask.
CHECKERS: list[Any] = []

# tests/npm pins @agentclientprotocol/sdk in its lockfile; `make test` installs it (scripts/install-test-npm.sh).
NPM_DIR = Path(__file__).resolve().parent / "npm"
SCHEMA = NPM_DIR / "node_modules" / "@agentclientprotocol" / "sdk" / "schema" / "v1" / "schema.json"


def schema_path() -> Path:
    """The schema file: $ACP_SCHEMA when set (to try another protocol release), else the pinned package's."""
    env = os.environ.get("ACP_SCHEMA")
    path = Path(env) if env else SCHEMA
    if not path.is_file():
        raise FileNotFoundError(f"ACP schema not found at {path}: run `make test-deps` (scripts/install-test-npm.sh)")
    return path


@cache
def _schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(schema_path().read_text(encoding="utf-8"))
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


@cache
def _unstable_validator(def_name: str) -> jsonschema.Draft202012Validator:
    # The SDK ships the draft methods (session/fork, ...) in schema.unstable.json beside the stable schema.
    data = json.loads(schema_path().with_name("schema.unstable.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{def_name}", "$defs": data["$defs"]})


def validate_unstable(def_name: str, payload: Any) -> None:
    """As :func:`validate`, against the SDK's unstable schema (methods not in the protocol yet)."""
    errors = sorted(_unstable_validator(def_name).iter_errors(payload), key=lambda e: list(e.path))
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        raise AssertionError(f"{def_name} (unstable) invalid at {list(best.path)}: {best.message}\npayload: {payload}")
