"""Folder trust: trustedFolders.json rules, env and editor overrides, the feature switch, and writing rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_lsp.config.trust import (
    TrustLevel,
    decide_trust,
    decide_workspace_trust,
    load_rules,
    trust_file_path,
    trust_folder,
)
from agent_lsp.errors import ConfigError
from tests.config.conftest import write_json, write_text


@pytest.fixture
def tree(home: Path) -> Path:
    """home/code/{proj/sub, other}, home/elsewhere."""
    base = home / "code"
    for d in ("proj/sub/deeper", "other", "../elsewhere"):
        (base / d).mkdir(parents=True, exist_ok=True)
    return base


def _rules(home: Path, rules: dict[str, str]) -> Path:
    return write_json(home / ".gemini" / "trustedFolders.json", rules)


def _decide(
    folder: Path, *, enabled: bool = True, env: dict[str, str] | None = None, editor: bool | None = None
) -> bool:
    return decide_trust(folder, settings_folder_trust_enabled=enabled, env=env or {}, editor_trust=editor).trusted


def test_trust_folder_rule_covers_the_folder_and_below(home: Path, tree: Path) -> None:
    _rules(home, {str(tree / "proj"): "TRUST_FOLDER"})
    decision = decide_trust(tree / "proj" / "sub", settings_folder_trust_enabled=True, env={}, editor_trust=None)
    assert decision.trusted and decision.source == "file"
    assert _decide(tree / "proj")
    assert not _decide(tree / "other")
    assert not _decide(tree)


def test_trust_parent_rule_trusts_the_parent_and_siblings(home: Path, tree: Path) -> None:
    _rules(home, {str(tree / "proj"): "TRUST_PARENT"})
    assert _decide(tree / "proj")
    assert _decide(tree / "other")
    assert _decide(tree)
    assert not _decide(home / "elsewhere")


def test_do_not_trust_deeper_rule_beats_trusted_parent(home: Path, tree: Path) -> None:
    _rules(home, {str(tree): "TRUST_FOLDER", str(tree / "proj" / "sub"): "DO_NOT_TRUST"})
    assert _decide(tree / "proj")
    assert not _decide(tree / "proj" / "sub")
    decision = decide_trust(
        tree / "proj" / "sub" / "deeper", settings_folder_trust_enabled=True, env={}, editor_trust=None
    )
    assert not decision.trusted and "DO_NOT_TRUST" in decision.reason


def test_deeper_trust_beats_shallower_distrust(home: Path, tree: Path) -> None:
    _rules(home, {str(tree): "DO_NOT_TRUST", str(tree / "proj"): "TRUST_FOLDER"})
    assert _decide(tree / "proj" / "sub")
    assert not _decide(tree / "other")


def test_do_not_trust_wins_at_equal_depth(home: Path, tree: Path) -> None:
    # TRUST_PARENT on code/proj reaches code/, the same folder the DO_NOT_TRUST rule names.
    _rules(home, {str(tree / "proj"): "TRUST_PARENT", str(tree): "DO_NOT_TRUST"})
    assert not _decide(tree / "other")
    assert not _decide(tree / "proj")


def test_do_not_trust_holds_even_with_the_feature_off(home: Path, tree: Path) -> None:
    _rules(home, {str(tree / "proj"): "DO_NOT_TRUST"})
    assert not _decide(tree / "proj", enabled=False)
    assert _decide(tree / "other", enabled=False)


def test_no_rule_is_untrusted_with_instructions(home: Path, tree: Path) -> None:
    decision = decide_trust(tree / "proj", settings_folder_trust_enabled=True, env={}, editor_trust=None)
    assert not decision.trusted and decision.source == "default"
    assert str(home / ".gemini" / "trustedFolders.json") in decision.reason
    assert "AGENT_LSP_TRUST_WORKSPACE=true" in decision.reason
    assert f'"{(tree / "proj").resolve()}": "TRUST_FOLDER"' in decision.reason


def test_feature_disabled_trusts_folders_without_rules(tree: Path) -> None:
    decision = decide_trust(tree / "proj", settings_folder_trust_enabled=False, env={}, editor_trust=None)
    assert decision.trusted and decision.source == "feature_disabled"


def test_env_override_beats_rules(home: Path, tree: Path) -> None:
    _rules(home, {str(tree / "proj"): "DO_NOT_TRUST", str(tree / "other"): "TRUST_FOLDER"})
    on = decide_trust(
        tree / "proj", settings_folder_trust_enabled=True, env={"AGENT_LSP_TRUST_WORKSPACE": "true"}, editor_trust=None
    )
    assert on.trusted and on.source == "env"
    assert not _decide(tree / "other", env={"AGENT_LSP_TRUST_WORKSPACE": "false"}, editor=True)
    assert _decide(tree / "proj", env={"AGENT_LSP_TRUST_WORKSPACE": "1"})
    # Gemini CLI's own variable is honoured too; ours wins when both are set.
    assert _decide(tree / "proj", env={"GEMINI_CLI_TRUST_WORKSPACE": "true"})
    assert not _decide(tree / "other", env={"GEMINI_CLI_TRUST_WORKSPACE": "false"})
    both = {"AGENT_LSP_TRUST_WORKSPACE": "false", "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    assert not _decide(tree / "other", env=both)
    # Nonsense values are ignored, not taken as either answer.
    assert _decide(tree / "other", env={"AGENT_LSP_TRUST_WORKSPACE": "maybe"})


def test_the_editor_can_only_take_trust_away(home: Path, tree: Path) -> None:
    """An editor's "trusted" comes over a channel a project can fill: it trusts nothing by itself, not even over
    an explicit DO_NOT_TRUST or with no rule at all; its "not trusted" holds over every rule and the env override."""
    _rules(home, {str(tree / "proj"): "DO_NOT_TRUST", str(tree / "other"): "TRUST_FOLDER"})
    decision = decide_trust(tree / "proj", settings_folder_trust_enabled=True, env={}, editor_trust=True)
    assert not decision.trusted and decision.source == "file"
    assert not _decide(tree / "new", editor=True)
    assert _decide(tree / "other", editor=True)  # the user's own rule trusts it
    refused = decide_trust(tree / "other", settings_folder_trust_enabled=True, env={}, editor_trust=False)
    assert not refused.trusted and refused.source == "editor"
    assert not _decide(tree / "other", env={"AGENT_LSP_TRUST_WORKSPACE": "true"}, editor=False)


def test_symlinked_folder_matches_rule_on_real_path(home: Path, tree: Path) -> None:
    _rules(home, {str(tree / "proj"): "TRUST_FOLDER"})
    link = home / "link-to-proj"
    link.symlink_to(tree / "proj", target_is_directory=True)
    assert _decide(link / "sub")


def test_trust_folder_writes_rules_and_keeps_others(home: Path, tree: Path) -> None:
    write_text(home / ".gemini" / "trustedFolders.json", '{\n  // mine\n  "/opt/x": "DO_NOT_TRUST",\n}\n')
    written = trust_folder(tree / "proj", TrustLevel.TRUST_FOLDER)
    assert written == home / ".gemini" / "trustedFolders.json"
    data = json.loads(written.read_text())
    assert data == {"/opt/x": "DO_NOT_TRUST", str((tree / "proj").resolve()): "TRUST_FOLDER"}
    assert _decide(tree / "proj")
    trust_folder(tree / "proj", "DO_NOT_TRUST")
    assert not _decide(tree / "proj")
    assert [p.name for p in written.parent.iterdir() if p.name.startswith(".trustedFolders")] == []


def test_trust_folder_refuses_to_overwrite_a_broken_file(home: Path, tree: Path) -> None:
    broken = write_text(home / ".gemini" / "trustedFolders.json", "{ not json")
    with pytest.raises(ConfigError) as info:
        trust_folder(tree / "proj", TrustLevel.TRUST_FOLDER)
    assert info.value.file == str(broken)
    assert broken.read_text() == "{ not json"
    # Deciding never raises: a broken file means no rules, and the reason says so.
    decision = decide_trust(tree / "proj", settings_folder_trust_enabled=True, env={}, editor_trust=None)
    assert not decision.trusted and decision.errors and "unusable" in decision.reason


def test_bad_entries_are_skipped_and_reported(home: Path, tree: Path) -> None:
    _rules(home, {str(tree / "proj"): "TRUST_EVERYTHING", "relative/path": "TRUST_FOLDER", str(tree): "TRUST_FOLDER"})
    rules, errors = load_rules({})
    assert [r.path for r in rules] == [tree]
    assert {e.key for e in errors} == {str(tree / "proj"), "relative/path"}
    assert _decide(tree / "proj")


def test_trust_file_location_can_be_overridden(tmp_path: Path, tree: Path) -> None:
    custom = tmp_path / "custom-trust.json"
    env = {"GEMINI_CLI_TRUSTED_FOLDERS_PATH": str(custom)}
    assert trust_file_path(env) == custom
    trust_folder(tree / "other", TrustLevel.TRUST_FOLDER, env=env)
    assert custom.exists()
    assert _decide(tree / "other", env=env)
    assert not _decide(tree / "other")


def test_multi_root_needs_every_root_trusted(home: Path, tree: Path) -> None:
    _rules(home, {str(tree / "proj"): "TRUST_FOLDER"})
    roots = [tree / "proj", tree / "other"]
    decision = decide_workspace_trust(roots, settings_folder_trust_enabled=True, env={}, editor_trust=None)
    assert not decision.trusted and str(tree / "other") in decision.reason
    trust_folder(tree / "other", TrustLevel.TRUST_FOLDER)
    assert decide_workspace_trust(roots, settings_folder_trust_enabled=True, env={}, editor_trust=None).trusted
