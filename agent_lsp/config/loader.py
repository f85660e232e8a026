"""Reads the settings layers (system, user, workspace, editor), merges them and validates the result."""

from __future__ import annotations

import copy
import json
import logging
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent_lsp.config import paths
from agent_lsp.config.settings import Settings
from agent_lsp.errors import ConfigError

log = logging.getLogger(__name__)

Raw = dict[str, Any]

OVERRIDES_LABEL = "editor settings"

# Legacy flat ("v1") keys -> nested path. Only keys we read, plus ones that are plain renames of them.
V1_KEYS: dict[str, str] = {
    "allowedTools": "tools.allowed",
    "allowMCPServers": "mcp.allowed",
    "autoAccept": "tools.autoAccept",
    "chatCompression": "model.chatCompression",
    "checkpointing": "general.checkpointing",
    "contextFileName": "context.fileName",
    "coreTools": "tools.core",
    "excludedProjectEnvVars": "advanced.excludedEnvVars",
    "excludeMCPServers": "mcp.excluded",
    "excludeTools": "tools.exclude",
    "fileFiltering": "context.fileFiltering",
    "folderTrust": "security.folderTrust.enabled",
    "includeDirectories": "context.includeDirectories",
    "maxSessionTurns": "model.maxSessionTurns",
    "model": "model.name",
    "shellInactivityTimeout": "tools.shell.inactivityTimeout",
    "skipNextSpeakerCheck": "model.skipNextSpeakerCheck",
    "toolCallCommand": "tools.callCommand",
    "toolDiscoveryCommand": "tools.discoveryCommand",
    "useRipgrep": "tools.useRipgrep",
}

# Under these paths a later layer's entry replaces the earlier one whole (an MCP server is one unit).
_SHALLOW = {("mcpServers",)}

_ENV_REF = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


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


# ---------------------------------------------------------------------------------------------- JSONC


def strip_jsonc(text: str) -> str:
    """Drop // and /* */ comments and trailing commas outside strings; newlines are kept for error positions."""
    return _drop_trailing_commas(_drop_comments(text))


def _string_end(text: str, start: int) -> int:
    """The index just past the JSON string that opens at ``start`` (escapes skipped; unterminated: the end)."""
    j, n = start + 1, len(text)
    while j < n and text[j] != '"':
        j += 2 if text[j] == "\\" else 1
    return min(j + 1, n)


def _drop_comments(text: str) -> str:
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = _string_end(text, i)
            out.append(text[i:j])
            i = j
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            stop = n if end < 0 else end + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:stop]))
            i = stop
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _drop_trailing_commas(text: str) -> str:
    chars = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = _string_end(text, i)
            continue
        if c == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] in "}]":
                chars[i] = " "
        i += 1
    return "".join(chars)


def parse_jsonc(text: str) -> Any:
    """json.loads for settings files: BOM, comments and trailing commas tolerated. Raises ValueError."""
    return json.loads(strip_jsonc(text.lstrip("\ufeff")))


def read_json_file(path: Path) -> tuple[Any, ConfigError | None]:
    """(value, None), or (None, None) when the file is absent, or (None, error) when it cannot be used."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as exc:
        return None, ConfigError(f"cannot read the file ({exc.__class__.__name__}: {exc})", file=str(path))
    if not text.strip():
        return {}, None
    try:
        return parse_jsonc(text), None
    except RecursionError:
        return None, ConfigError("JSON nested too deeply to read; the file was skipped", file=str(path))
    except json.JSONDecodeError as exc:
        return None, ConfigError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}; the file was skipped", file=str(path)
        )


# ---------------------------------------------------------------------------------------------- raw dict helpers


def expand_env(value: Any, env: Mapping[str, str]) -> Any:
    """``$VAR`` and ``${VAR}`` in every string value; unknown variables are left as written."""
    if isinstance(value, str):

        def sub(m: re.Match[str]) -> str:
            name = m.group(1) or m.group(2)
            return env.get(name, m.group(0))

        return _ENV_REF.sub(sub, value)
    if isinstance(value, dict):
        return {k: expand_env(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [expand_env(v, env) for v in value]
    return value


def deep_merge(base: Raw, top: Mapping[str, Any], _path: tuple[str, ...] = ()) -> Raw:
    """New dict: ``top`` over ``base``. Dicts merge, lists and scalars replace, ``null`` means "not set here"."""
    merged = dict(base)
    for key, value in top.items():
        if value is None:
            continue
        here = (*_path, key)
        old = merged.get(key)
        if here[0] == "hooks" and len(here) == 2 and isinstance(value, list) and isinstance(old, list):
            merged[key] = [*old, *value]  # Gemini CLI runs every layer's hooks for an event, not the top one's
        elif here == ("skills", "disabled") and isinstance(value, list) and isinstance(old, list):
            merged[key] = [*old, *(v for v in value if v not in old)]  # disabled anywhere: disabled
        elif isinstance(value, dict) and isinstance(old, dict) and here not in _SHALLOW:
            merged[key] = deep_merge(old, value, here)
        elif isinstance(value, dict) and isinstance(old, dict):
            merged[key] = {**old, **value}
        else:
            merged[key] = value
    return merged


def _set_path(raw: Raw, dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    node = raw
    for p in parents:
        child = node.get(p)
        if not isinstance(child, dict):
            child = {}
            node[p] = child
        node = child
    node[last] = value


def _get_path(raw: Mapping[str, Any], keys: Sequence[str]) -> Any:
    node: Any = raw
    for k in keys:
        if not isinstance(node, dict) or k not in node:
            return None
        node = node[k]
    return node


def _pop_path(raw: Raw, keys: Sequence[str]) -> None:
    parent = _get_path(raw, keys[:-1]) if len(keys) > 1 else raw
    if isinstance(parent, dict):
        parent.pop(keys[-1], None)


def _prune_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _prune_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_prune_none(v) for v in value]
    return value


def normalize(raw: Raw) -> Raw:
    """Map legacy flat keys onto the nested shape. Nested keys written in the same file win over flat ones.
    ``null`` values are dropped: editors send them for "not set"."""
    v1: Raw = {}
    rest: Raw = {}
    for key, value in _prune_none(raw).items():
        target = V1_KEYS.get(key)
        # "model" is both a v1 key (the model name) and a v2 section: an object means v2.
        is_v2_section = key == "model" and isinstance(value, dict)
        if target and not is_v2_section:
            _set_path(v1, target, value)
        else:
            rest[key] = value
    merged = deep_merge(v1, rest) if v1 else rest
    model = merged.get("model")
    if isinstance(model, dict):
        newer = model.get("compressionThreshold")
        chat = model.get("chatCompression")
        has_old = isinstance(chat, dict) and "contextPercentageThreshold" in chat
        if isinstance(newer, int | float) and not isinstance(newer, bool) and not has_old:
            _set_path(merged, "model.chatCompression.contextPercentageThreshold", newer)
    return merged


def _describe(value: Any) -> str:
    kind = {bool: "boolean", int: "number", float: "number", str: "string", list: "array", dict: "object"}.get(
        type(value), type(value).__name__
    )
    shown = json.dumps(value, default=str)
    return f"{kind} {shown[:60]}{'…' if len(shown) > 60 else ''}"


def _error_keys(clean: Raw, loc: Sequence[int | str]) -> list[str]:
    """The dict keys of ``loc`` that exist in ``clean``: pydantic adds union member names and list indexes."""
    keys: list[str] = []
    node: Any = clean
    for part in loc:
        if not (isinstance(part, str) and isinstance(node, dict) and part in node):
            break
        keys.append(part)
        node = node[part]
    return keys


def validate_layer(raw: Raw, label: str, as_written: Raw | None = None) -> tuple[Raw, list[ConfigError]]:
    """Drop every key the Settings model rejects (a bad MCP server entry is dropped whole); one error each.

    Messages quote ``as_written`` (the layer before $VAR expansion) so an expanded secret never shows."""
    errors: list[ConfigError] = []
    if not raw:
        return {}, errors  # nothing to check (most layers: absent files); spares building the validators
    clean = copy.deepcopy(raw)  # private copy we may prune
    for _ in range(20):
        try:
            Settings.model_validate(clean)
            return clean, errors
        except ValidationError as exc:
            to_drop: dict[tuple[str, ...], str] = {}
            for err in exc.errors():
                keys = _error_keys(clean, err["loc"])
                if not keys:
                    errors.append(ConfigError(f"{err['msg']}; the whole file was skipped", file=label))
                    return {}, errors
                where = tuple(keys[:2]) if keys[0] == "mcpServers" else tuple(keys)
                if where in to_drop:
                    continue  # a union reports once per member type; one message is enough
                inner = ".".join(keys[len(where) :])
                got = _describe(_get_path(clean if as_written is None else as_written, keys))
                to_drop[where] = (
                    f"{inner}: {err['msg']} (got {got}); server entry ignored"
                    if inner
                    else f"{err['msg']} (got {got}); key ignored"
                )
            for where, message in to_drop.items():
                errors.append(ConfigError(message, file=label, key=".".join(where)))
                _pop_path(clean, where)
    errors.append(ConfigError("settings could not be validated; the file was skipped", file=label))
    return {}, errors


# ---------------------------------------------------------------------------------------------- layers


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
        if _get_path(raw, ("security", "folderTrust", "enabled")) is not None:
            errors.append(
                ConfigError(
                    "folder trust can only be switched in user or system settings; key ignored",
                    file=layer.label,
                    key="security.folderTrust.enabled",
                )
            )
            _pop_path(raw, ("security", "folderTrust", "enabled"))
        if _get_path(raw, ("general", "defaultApprovalMode")) == "yolo":
            errors.append(
                ConfigError(
                    "'yolo' cannot be set by workspace settings; use user settings or the editor; key ignored",
                    file=layer.label,
                    key="general.defaultApprovalMode",
                )
            )
            _pop_path(raw, ("general", "defaultApprovalMode"))
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
    if settings.security.disable_yolo_mode and settings.general.default_approval_mode == "yolo":
        errors.append(
            ConfigError(
                "'yolo' is disabled by security.disableYoloMode; using 'default'",
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
