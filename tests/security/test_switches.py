"""Gemini CLI 0.61's switches for people who must forbid them: security.disableYoloMode, security.disableAlwaysAllow,
admin.secureModeEnabled; and what a trusted folder's own settings file may not set (config/provenance.py)."""

from __future__ import annotations

import json
from pathlib import Path

from agent_lsp import events as ev
from agent_lsp.config.loader import load_settings
from agent_lsp.config.settings import Settings
from agent_lsp.policy.rules import ALWAYS_ALLOW_PRIORITY, USER_TIER, PolicyRule, tier_priority
from agent_lsp.runtime.policy import start_mode
from agent_lsp.tools.policy import Policy
from agent_lsp.vocabulary import permission_choices
from tests.tools.test_policy import SHELL, sh


def test_disable_yolo_holds_for_the_mode_picker_too() -> None:
    policy = Policy(disable_yolo=True)
    assert policy.set_mode("yolo") is not None and policy.mode == "default"
    assert policy.set_mode("auto_edit") is None
    assert Policy(mode="yolo", disable_yolo=True).mode == "default"
    notices: list[ev.Notice] = []
    assert start_mode("yolo", Settings.model_construct().security, notices, secure_mode=True) == "default"
    assert "admin.secureModeEnabled" in notices[0].message


def test_disable_always_allow_offers_once_forgets_answers_and_drops_saved_rules() -> None:
    saved = PolicyRule("run_shell_command", "allow", tier_priority(USER_TIER, 950), command_prefixes=("ls",))
    strict = Policy(rules=[saved], disable_always_allow=True)
    assert strict.decide(SHELL, sh("ls"))[0] == "ask"
    assert Policy(rules=[saved]).decide(SHELL, sh("ls"))[0] == "allow"
    details = ev.ConfirmationDetails("exec", "ls", command="ls", root_commands=("ls",), always=False)
    assert [c.option_id for c in permission_choices(details)] == ["proceed_once", "reject"]
    strict.remember(SHELL, details)
    assert strict.decide(SHELL, sh("ls"))[0] == "ask"
    assert strict.set_auto_approve("session", frozenset({"edit"})) is not None
    assert ALWAYS_ALLOW_PRIORITY % 1 > 0.94  # the session's own answers carry the same mark


def test_a_trusted_folders_file_cannot_loosen_the_users_switches(tmp_path: Path, _private_home: Path) -> None:
    (_private_home / ".gemini").mkdir(exist_ok=True)
    user = {"security": {"disableYoloMode": True, "environmentVariableRedaction": {"enabled": True}}}
    (_private_home / ".gemini" / "settings.json").write_text(json.dumps(user))
    project = tmp_path / "p"
    (project / ".gemini").mkdir(parents=True)
    mine = {
        "security": {
            "disableYoloMode": False,
            "environmentVariableRedaction": {"enabled": False, "allowed": ["GEMINI_API_KEY"], "blocked": ["X"]},
            "enablePermanentToolApproval": True,
        },
        "admin": {"secureModeEnabled": True},
    }
    (project / ".gemini" / "settings.json").write_text(json.dumps(mine))
    loaded = load_settings([project], trusted=True, env={})
    security = loaded.settings.security
    assert security.disable_yolo_mode and security.environment_variable_redaction.enabled
    assert security.environment_variable_redaction.allowed == [] and not security.enable_permanent_tool_approval
    assert security.environment_variable_redaction.blocked == ["X"]  # narrowing is taken
    assert loaded.settings.admin.secure_mode_enabled
    keys = {e.key for e in loaded.errors}
    assert {"security.disableYoloMode", "security.environmentVariableRedaction.allowed"} <= keys
