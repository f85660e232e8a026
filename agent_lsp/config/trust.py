"""Folder trust: whether a workspace may supply settings, .env and GEMINI.md (Gemini CLI's trustedFolders.json)."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Literal

from agent_lsp.atomic_file import write_atomic
from agent_lsp.config import paths
from agent_lsp.config.jsonc import read_json_file
from agent_lsp.errors import ConfigError

log = logging.getLogger(__name__)

ENV_OVERRIDE = "AGENT_LSP_TRUST_WORKSPACE"
GEMINI_ENV_OVERRIDE = "GEMINI_CLI_TRUST_WORKSPACE"
TRUST_FILE_ENV = "GEMINI_CLI_TRUSTED_FOLDERS_PATH"

TrustSource = Literal["env", "editor", "file", "feature_disabled", "default"]


class TrustLevel(StrEnum):
    TRUST_FOLDER = "TRUST_FOLDER"
    TRUST_PARENT = "TRUST_PARENT"  # trusts the parent of the listed folder, and everything below it
    DO_NOT_TRUST = "DO_NOT_TRUST"


@dataclass(frozen=True)
class TrustRule:
    path: Path  # as written in the file
    level: TrustLevel

    @property
    def effective_path(self) -> Path:
        return self.path.parent if self.level is TrustLevel.TRUST_PARENT else self.path


@dataclass(frozen=True)
class TrustDecision:
    trusted: bool
    reason: str
    source: TrustSource = "default"
    errors: tuple[ConfigError, ...] = field(default=(), repr=False)


def trust_file_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    override = env.get(TRUST_FILE_ENV)
    return Path(override) if override else paths.gemini_dir() / "trustedFolders.json"


def _real(path: Path) -> Path:
    try:
        return Path(os.path.realpath(path.expanduser()))
    except OSError:
        return path


def load_rules(env: Mapping[str, str] | None = None) -> tuple[list[TrustRule], list[ConfigError]]:
    """Rules from trustedFolders.json; unusable entries become errors and are left out."""
    path = trust_file_path(env)
    value, error = read_json_file(path)
    if error is not None:
        return [], [error]
    if value is None:
        return [], []
    if not isinstance(value, dict):
        return [], [ConfigError("the top level must be a JSON object of path -> trust level", file=str(path))]
    rules: list[TrustRule] = []
    errors: list[ConfigError] = []
    levels = ", ".join(level.value for level in TrustLevel)
    for raw_path, raw_level in value.items():
        try:
            level = TrustLevel(raw_level)
        except ValueError:
            errors.append(
                ConfigError(f"unknown trust level {raw_level!r} (use {levels})", file=str(path), key=raw_path)
            )
            continue
        if not Path(raw_path).expanduser().is_absolute():
            errors.append(ConfigError("folder paths must be absolute", file=str(path), key=raw_path))
            continue
        rules.append(TrustRule(Path(raw_path).expanduser(), level))
    return rules, errors


def match_rule(folder: Path, rules: Sequence[TrustRule]) -> TrustRule | None:
    """The most specific rule covering ``folder`` (deepest effective folder); DO_NOT_TRUST wins a tie."""
    target = _real(folder)
    best: TrustRule | None = None
    best_rank = (-1, -1)
    for rule in rules:
        base = _real(rule.effective_path)
        if target != base and base not in target.parents:
            continue
        rank = (len(base.parts), 1 if rule.level is TrustLevel.DO_NOT_TRUST else 0)
        if rank > best_rank:
            best, best_rank = rule, rank
    return best


def _env_flag(env: Mapping[str, str], name: str, lenient: bool) -> bool | None:
    raw = env.get(name)
    if raw is None or raw == "":
        return None
    value = raw.strip().lower()
    truthy = ("true", "1", "yes", "on") if lenient else ("true",)
    falsy = ("false", "0", "no", "off") if lenient else ("false",)
    if value in truthy:
        return True
    if value in falsy:
        return False
    log.warning("ignoring %s=%r: expected true or false", name, raw)
    return None


def decide_trust(
    folder: Path,
    *,
    settings_folder_trust_enabled: bool,
    env: Mapping[str, str],
    editor_trust: bool | None,
) -> TrustDecision:
    """The editor's refusal, then the env override, then trustedFolders.json, then the feature switch.

    ``editor_trust`` can only take trust away (docs/security.md): an editor's "trusted" is a fact about the
    editor's own workspace trust, sent over a channel a project can fill (Zed's project settings set
    ``initialization_options``), so it never trusts a folder by itself; its "not trusted" always holds.
    ``settings_folder_trust_enabled`` must come from user/system settings only
    (config.loader.read_folder_trust_enabled or LoadedSettings.folder_trust_enabled)."""
    if editor_trust is False:
        return TrustDecision(False, "the editor does not trust this workspace (its restricted mode)", "editor")
    for name, lenient in ((ENV_OVERRIDE, True), (GEMINI_ENV_OVERRIDE, False)):
        flag = _env_flag(env, name, lenient)
        if flag is not None:
            word = "trusted" if flag else "not trusted"
            return TrustDecision(flag, f"{folder} is {word} because {name}={env[name]}", "env")

    rules, errors = load_rules(env)
    trust_file = trust_file_path(env)
    rule = match_rule(folder, rules)
    if rule is not None:
        trusted = rule.level is not TrustLevel.DO_NOT_TRUST
        how = "trusted" if trusted else "not trusted"
        reason = f"{folder} is {how} by the rule {str(rule.path)!r}: {rule.level.value} in {trust_file}"
        if not trusted:
            reason += f"; change that rule or set {ENV_OVERRIDE}=true to trust it"
        return TrustDecision(trusted, reason, "file", tuple(errors))
    if not settings_folder_trust_enabled:
        return TrustDecision(
            True, "folder trust is turned off (security.folderTrust.enabled: false)", "feature_disabled", tuple(errors)
        )
    broken = f" ({len(errors)} unusable entries in {trust_file})" if errors else ""
    return TrustDecision(
        False,
        f"{folder} is not trusted yet{broken}, so its .gemini/settings.json, .env and GEMINI.md files are ignored. "
        f'To trust it, add "{_real(folder)}": "TRUST_FOLDER" to {trust_file} (the editor\'s "Trust this '
        f'folder" command does that), or set {ENV_OVERRIDE}=true.',
        "default",
        tuple(errors),
    )


def decide_workspace_trust(
    roots: Sequence[Path],
    *,
    settings_folder_trust_enabled: bool,
    env: Mapping[str, str],
    editor_trust: bool | None,
) -> TrustDecision:
    """A multi-root workspace is trusted only when every root is; the first refusal is the reason."""
    decisions = [
        decide_trust(
            root, settings_folder_trust_enabled=settings_folder_trust_enabled, env=env, editor_trust=editor_trust
        )
        for root in roots
    ]
    for decision in decisions:
        if not decision.trusted:
            return decision
    if not decisions:
        return TrustDecision(False, "the workspace has no folders", "default")
    return decisions[0]


def trust_folder(path: Path, level: TrustLevel | str, *, env: Mapping[str, str] | None = None) -> Path:
    """Add or replace the rule for ``path`` in trustedFolders.json (atomically); returns the file written.

    Raises ConfigError if the existing file cannot be parsed, rather than overwrite the user's rules."""
    level = TrustLevel(level)
    target = trust_file_path(env)
    value, error = read_json_file(target)
    if error is not None:
        raise error
    rules: dict[str, object] = value if isinstance(value, dict) else {}
    if value is not None and not isinstance(value, dict):
        raise ConfigError("the top level must be a JSON object of path -> trust level", file=str(target))
    rules[str(_real(path))] = level.value
    write_atomic(target, json.dumps(rules, indent=2).encode("utf-8") + b"\n")
    return target
