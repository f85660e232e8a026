"""docs/settings.md's reference says what the code does: every documented default is the default the settings
model gives (read from both, compared key by key)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agent_lsp.config.settings import Settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "settings.md"
ROW = re.compile(r"^\| (`[^|]+`) \| ([^|]+) \|")
NOT_A_VALUE = ("—", "the built-in table")  # documented in words: a map of its own, or a table in code


def documented_defaults() -> dict[str, Any]:
    """Key → default, from the tables under "## Keys" (keys with a ``<placeholder>`` name entries, not defaults)."""
    text = DOC.read_text()
    section = text.split("\n## Keys\n", 1)[1].split("\n## Policies\n", 1)[0]
    hooks = text.split("### `hooks`, `hooksConfig`", 1)[1].split("\n## ", 1)[0]
    out: dict[str, Any] = {}
    for line in (section + "\n" + hooks).splitlines():
        match = ROW.match(line)
        if match is None or match.group(1) == "`Key`":
            continue
        keys = re.findall(r"`([^`]+)`", match.group(1))
        cell = match.group(2).strip()
        if cell in NOT_A_VALUE:
            continue
        if cell.startswith("unset"):
            value: Any = None
        else:
            literal = re.fullmatch(r"`([^`]+)`", cell)
            assert literal is not None, f"{keys}: default {cell!r} is neither `a JSON value` nor unset"
            value = json.loads(literal.group(1))
        for key in keys:
            if "<" not in keys[0] and not key.startswith("."):  # a placeholder row and its continuations
                out[key] = value
    return out


def code_default(defaults: dict[str, Any], key: str) -> Any:
    node: Any = defaults
    for part in key.split("."):
        assert isinstance(node, dict) and part in node, f"{key} is documented but the settings model has no such key"
        node = node[part]
    return node


def test_every_documented_default_is_the_codes() -> None:
    documented = documented_defaults()
    assert len(documented) > 40  # the tables were found and read
    defaults = Settings().model_dump(by_alias=True)
    wrong = {
        key: (value, code_default(defaults, key))
        for key, value in documented.items()
        if code_default(defaults, key) != value
    }
    assert wrong == {}, "documented default != code default: " + json.dumps(wrong)


def test_telemetry_read_from_a_file_without_the_key_uses_the_same_default(tmp_path: Path) -> None:
    from agent_lsp.store.telemetry import telemetry_from_settings

    sink = telemetry_from_settings({"enabled": True, "outfile": str(tmp_path / "t.jsonl")})
    assert sink is not None
    assert sink.log_prompts == documented_defaults()["telemetry.logPrompts"] == Settings().telemetry.log_prompts
    sink.close()


def test_every_documented_vscode_setting_default_is_the_extensions() -> None:
    """docs/editors/vscode.md's settings table against the extension's package.json (contributes.configuration)."""
    root = DOC.parents[1]
    manifest = json.loads((root / "vscode-extension" / "package.json").read_text())
    sections = manifest["contributes"]["configuration"]
    declared = {
        k: v.get("default")
        for s in ([sections] if isinstance(sections, dict) else sections)
        for k, v in s["properties"].items()
    }
    documented = {}
    for line in (root / "docs" / "editors" / "vscode.md").read_text().splitlines():
        match = re.match(r"^\| `(agentLsp\.[^`]+)` \| `([^`]*)` \|", line)
        if match:
            raw = match.group(2)
            try:
                documented[match.group(1)] = json.loads(raw)
            except json.JSONDecodeError:
                documented[match.group(1)] = raw  # a bare word is a string (`default`, `off`)
    assert set(documented) == set(declared), set(documented) ^ set(declared)
    assert {k: v for k, v in documented.items() if declared[k] != v} == {}
