"""The first request's tool declarations, side by side with Gemini CLI 0.61.0's (captured from the real CLI against
the same fake server: tests/integration/data/gemini_cli_0_61_tools.json): the same tools in the same modes, with the
same parameter names, types, required lists, enums, defaults and numeric bounds. (0.61 declares no defaults: a
default of ours is a difference too, since the model reads one as a promise.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_gemini import FakeGemini
from tests.integration.test_gemini_cli_parity import agent, chunk

REFERENCE = json.loads((Path(__file__).parent / "data" / "gemini_cli_0_61_tools.json").read_text())
# Ours that 0.61 no longer declares by default (documented in docs/tools.md), and the one tool 0.61 keeps out of
# headless default mode that we offer (write_todos asks nobody; 0.61 files it under "other"); lsp and rename_symbol
# where a language server serves the folder (one on PATH does).
OURS_ONLY = {"read_many_files", "save_memory", "write_todos", "lsp", "rename_symbol"}


COMPARED = ("enum", "default", "minimum", "maximum")  # beside names, types and required lists


def skeleton(schema: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": schema.get("type")}
    out.update({key: schema[key] for key in COMPARED if key in schema})
    if "properties" in schema:
        out["properties"] = {k: skeleton(v) for k, v in schema["properties"].items()}
    if "items" in schema:
        out["items"] = skeleton(schema["items"])
    if schema.get("required"):
        out["required"] = sorted(schema["required"])
    return out


def first_request_tools(mode: str, project: Path, home: Path, *, trust: bool = True) -> dict[str, dict[str, Any]]:
    with FakeGemini([chunk({"text": "hi"})]) as fake:
        result = agent(
            "-p",
            "say hi",
            "-m",
            "gemini-2.5-flash",
            "--approval-mode",
            mode,
            cwd=project,
            home=home,
            fake=fake,
            trust=trust,
        )
        [request] = fake.generation_requests()
    assert result.returncode == 0, result.stderr
    return {
        d["name"]: skeleton(d.get("parametersJsonSchema") or d["parameters"])
        for t in request.body["tools"]
        for d in t["functionDeclarations"]
    }


def assert_same_parameters(name: str, ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    """Every parameter 0.61 declares, with its type, enum, default and bounds (items and nested objects too) and the
    same required list."""
    assert ours.get("required", []) == theirs.get("required", []), name
    for key in COMPARED:
        assert ours.get(key) == theirs.get(key), f"{name}: {key} {ours.get(key)!r} != 0.61's {theirs.get(key)!r}"
    for param, spec in theirs.get("properties", {}).items():
        assert param in ours.get("properties", {}), f"{name}.{param} missing"
        mine = ours["properties"][param]
        assert mine["type"] == spec["type"], f"{name}.{param}: {mine['type']} != {spec['type']}"
        if "properties" in spec:
            assert_same_parameters(f"{name}.{param}", mine, spec)
        if "items" in spec:
            assert_same_parameters(f"{name}.{param}[]", mine["items"], spec["items"])


def test_yolo_declares_all_of_0_61s_tools_with_their_parameters(project: Path, home: Path) -> None:
    ours = first_request_tools("yolo", project, home)
    theirs = REFERENCE["declared"]["yolo"]
    assert len(theirs) == 16
    assert set(theirs) <= set(ours), set(theirs) - set(ours)
    assert set(ours) - set(theirs) <= OURS_ONLY
    for name in theirs:
        if name == "activate_skill":
            # The enum names each CLI's own built-in skills; the parameter itself is the same.
            assert ours[name]["properties"]["name"]["type"] == "string" and ours[name]["required"] == ["name"]
            continue
        assert_same_parameters(name, ours[name], REFERENCE["schemas"][name])


@pytest.mark.parametrize("mode", ["default", "auto_edit", "plan"])
def test_the_other_modes_declare_what_0_61_declares(mode: str, project: Path, home: Path) -> None:
    ours = set(first_request_tools(mode, project, home))
    theirs = set(REFERENCE["declared"][mode])
    assert theirs <= ours, theirs - ours
    assert ours - theirs <= OURS_ONLY


def test_an_untrusted_folder_gets_the_default_modes_tools_even_asked_for_yolo(project: Path, home: Path) -> None:
    """0.61 overrides yolo to default in an untrusted folder ("Approval mode overridden to \"default\" because the
    current folder is not trusted"), then refuses to run headless there at all (exit 55, unless the folder is
    trusted by --skip-trust or GEMINI_CLI_TRUST_WORKSPACE); we run, with the default mode's tools."""
    ours = set(first_request_tools("yolo", project, home, trust=False))
    theirs = set(REFERENCE["declared"]["default"])
    assert theirs <= ours, theirs - ours
    assert ours - theirs <= OURS_ONLY
