"""Reads the settings layers (system, user, workspace, editor), merges them and validates the result."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agent_lsp.config import paths

# The file format, the v1 keys, the raw-dict helpers and per-key validation live in their own modules;
# their public names stay importable from here, where callers have always found them.
from agent_lsp.config.jsonc import read_json_file
from agent_lsp.config.migrate import normalize
from agent_lsp.config.provenance import workspace_layer_problems
from agent_lsp.config.raw import Raw, deep_merge, expand_env, get_path, pop_path
from agent_lsp.config.settings import Settings
from agent_lsp.config.validation import validate_layer
from agent_lsp.errors import ConfigError

log = logging.getLogger(__name__)

OVERRIDES_LABEL = "editor settings"


@dataclass(frozen=True)
class LoadedSettings:
    """The merged settings plus what went wrong on the way. Nothing in here was raised."""

    settings: Settings
    errors: list[ConfigError]
    sources: list[Path]
    skipped_workspace: bool
    # From system and user files only, so a workspace file cannot switch folder trust off.
    folder_trust_enabled: bool = True
    base_raw: Raw = field(default_factory=dict, repr=False)
    base_errors: list[ConfigError] = field(default_factory=list, repr=False)


@dataclass
class _Layer:
    label: str
    raw: Raw
    as_written: Raw  # before $VAR expansion, for error messages
    workspace: bool = False


def _system_dir() -> Path:
    if sys.platform == "darwin":
        return Path("/Library/Application Support/GeminiCli")
    if sys.platform == "win32":
        return Path("C:/ProgramData/gemini-cli")
    return Path("/etc/gemini-cli")


def system_defaults_path(env: Mapping[str, str]) -> Path:
    override = env.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH")
    return Path(override) if override else _system_dir() / "system-defaults.json"


def system_settings_path(env: Mapping[str, str]) -> Path:
    override = env.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
    return Path(override) if override else _system_dir() / "settings.json"


def user_settings_path() -> Path:
    return paths.gemini_dir() / "settings.json"


def agent_settings_path() -> Path:
    return paths.state_dir() / "settings.json"


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def _read_layer(
    path: Path, env: Mapping[str, str], errors: list[ConfigError], workspace: bool = False
) -> _Layer | None:
    value, error = read_json_file(path)
    if error is not None:
        errors.append(error)
        return None
    if value is None:
        return None
    if not isinstance(value, dict):
        errors.append(ConfigError("the top level must be a JSON object; the file was skipped", file=str(path)))
        return None
    return _Layer(str(path), normalize(expand_env(value, env)), normalize(value), workspace)


def _admin_layers(env: Mapping[str, str], errors: list[ConfigError]) -> tuple[list[_Layer], list[_Layer]]:
    """(layers below the workspace, layers above it), all outside any repository's control."""
    below = [system_defaults_path(env), user_settings_path(), agent_settings_path()]
    seen: list[Path] = []
    lower: list[_Layer] = []
    for p in below:
        if any(_same_file(p, s) for s in seen):
            continue
        seen.append(p)
        layer = _read_layer(p, env, errors)
        if layer:
            lower.append(layer)
    upper_layer = _read_layer(system_settings_path(env), env, errors)
    return lower, [upper_layer] if upper_layer else []


def _apply_policy(raw: Raw, layer: _Layer) -> list[ConfigError]:
    """Keys a layer may not set: trust and yolo must not come from a repository's own files."""
    errors: list[ConfigError] = []
    if layer.workspace:
        if get_path(raw, ("security", "folderTrust", "enabled")) is not None:
            errors.append(
                ConfigError(
                    "folder trust can only be switched in user or system settings; key ignored",
                    file=layer.label,
                    key="security.folderTrust.enabled",
                )
            )
            pop_path(raw, ("security", "folderTrust", "enabled"))
        if get_path(raw, ("general", "defaultApprovalMode")) == "yolo":
            errors.append(
                ConfigError(
                    "'yolo' cannot be set by workspace settings; use user settings or the editor; key ignored",
                    file=layer.label,
                    key="general.defaultApprovalMode",
                )
            )
            pop_path(raw, ("general", "defaultApprovalMode"))
        for key, why in workspace_layer_problems(raw):
            errors.append(ConfigError(why, file=layer.label, key=key))
    return errors


def _merge_layers(layers: Sequence[_Layer], errors: list[ConfigError]) -> Raw:
    merged: Raw = {}
    for layer in layers:
        clean, layer_errors = validate_layer(layer.raw, layer.label, layer.as_written)
        errors.extend(layer_errors)
        errors.extend(_apply_policy(clean, layer))
        merged = deep_merge(merged, clean)
    return merged


def _finish(merged: Raw, errors: list[ConfigError]) -> Settings:
    clean, merge_errors = validate_layer(merged, "merged settings")
    errors.extend(merge_errors)
    # Nothing set anywhere: the defaults, which need no validation (see settings._Section).
    settings = Settings.model_validate(clean) if clean else Settings.model_construct()
    no_yolo = settings.security.disable_yolo_mode or settings.admin.secure_mode_enabled
    if no_yolo and settings.general.default_approval_mode == "yolo":
        which = "admin.secureModeEnabled" if settings.admin.secure_mode_enabled else "security.disableYoloMode"
        errors.append(
            ConfigError(
                f"'yolo' is disabled by {which}; using 'default'",
                file="merged settings",
                key="general.defaultApprovalMode",
            )
        )
        general = settings.general.model_copy(update={"default_approval_mode": "default"})
        settings = settings.model_copy(update={"general": general})
    return settings


def read_folder_trust_enabled(env: Mapping[str, str] | None = None) -> bool:
    """security.folderTrust.enabled from system and user files only (call before deciding trust)."""
    env = os.environ if env is None else env
    errors: list[ConfigError] = []
    lower, upper = _admin_layers(env, errors)
    settings = _finish(_merge_layers([*lower, *upper], errors), errors)
    return settings.security.folder_trust.enabled


def read_user_settings(env: Mapping[str, str] | None = None) -> Settings:
    """The settings of system and user files only, for keys that name programs to run (``lspServers``): a
    repository's own settings must never choose one."""
    env = os.environ if env is None else env
    errors: list[ConfigError] = []
    lower, upper = _admin_layers(env, errors)
    return _finish(_merge_layers([*lower, *upper], errors), errors)


def load_settings(
    workspace_roots: Sequence[Path],
    *,
    trusted: bool,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> LoadedSettings:
    """Merge every layer, last wins: defaults, system defaults, ~/.gemini, agent-lsp user file, workspace
    files (trusted only; the primary root last), system settings, then ``overrides``. Never raises ConfigError."""
    env = os.environ if env is None else env
    errors: list[ConfigError] = []
    lower, upper = _admin_layers(env, errors)
    admin_errors: list[ConfigError] = []
    admin_settings = _finish(_merge_layers([*lower, *upper], admin_errors), admin_errors)

    workspace: list[_Layer] = []
    skipped = False
    known = [Path(layer.label) for layer in (*lower, *upper)]
    # Reversed so the primary root is applied last and wins over secondary roots.
    for root in reversed(list(workspace_roots)):
        path = Path(root) / ".gemini" / "settings.json"
        if any(_same_file(path, k) for k in known):
            continue  # the workspace is the home folder: its file is the user file, already read
        known.append(path)
        if not trusted:
            if path.exists():
                skipped = True
                log.info("workspace is not trusted; ignoring %s", path)
            continue
        layer = _read_layer(path, env, errors, workspace=True)
        if layer:
            workspace.append(layer)

    layers = [*lower, *workspace, *upper]
    base_raw = _merge_layers(layers, errors)
    loaded = LoadedSettings(
        settings=Settings.model_construct(),  # a placeholder: merge_overrides sets the real one
        errors=[],
        sources=[Path(layer.label) for layer in layers],
        skipped_workspace=skipped,
        folder_trust_enabled=admin_settings.security.folder_trust.enabled,
        base_raw=base_raw,
        base_errors=errors,
    )
    return merge_overrides(loaded, overrides, env=env)


def merge_overrides(
    loaded: LoadedSettings, overrides: Mapping[str, Any] | None, *, env: Mapping[str, str] | None = None
) -> LoadedSettings:
    """Apply editor-provided settings (nested shape) on top of the file layers. They replace any overrides
    given earlier, so a key the editor stops sending falls back to the files."""
    env = os.environ if env is None else env
    errors = list(loaded.base_errors)
    merged = loaded.base_raw
    if overrides:
        if not isinstance(overrides, Mapping):
            errors.append(ConfigError("must be an object; ignored", file=OVERRIDES_LABEL))
        else:
            raw = normalize(expand_env(dict(overrides), env))
            clean, layer_errors = validate_layer(raw, OVERRIDES_LABEL, normalize(dict(overrides)))
            errors.extend(layer_errors)
            merged = deep_merge(merged, clean)
    settings = _finish(merged, errors)
    return replace(loaded, settings=settings, errors=errors)
