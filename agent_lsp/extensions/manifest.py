"""Reading ``gemini-extension.json``: the fields agent-lsp uses, checked, with Gemini CLI's ``${...}`` variables."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Required

from pydantic import Field
from typing_extensions import TypedDict  # pydantic reads typing's TypedDict only from 3.12

from agent_lsp.fields import Fields, conforms

MANIFEST = "gemini-extension.json"
INSTALL_METADATA = ".gemini-extension-install.json"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_VAR = re.compile(r"\$\{([^}]+)\}")
# The types of the fields agent-lsp reads (checked by agent_lsp.fields).
_Name = Annotated[str, Field(pattern=_NAME.pattern)]
_Version = Annotated[str, Field(pattern=r"\S")]
_Servers = dict[str, dict[str, Any]]
_FileNames = Annotated[str, Field(min_length=1)] | list[Annotated[str, Field(min_length=1)]]


class _SettingEntry(TypedDict, total=False):
    name: Required[str]
    envVar: Required[str]


class ManifestError(ValueError):
    """The manifest cannot be used; the message names the file and what is wrong."""


@dataclass(frozen=True)
class Setting:
    name: str
    env_var: str
    description: str = ""
    sensitive: bool = False


@dataclass(frozen=True)
class Manifest:
    name: str
    version: str
    path: Path  # the folder the extension's files are in (a linked extension's source)
    description: str = ""
    mcp_servers: Mapping[str, Any] = field(default_factory=dict)
    context_file_names: tuple[str, ...] = ("GEMINI.md",)
    exclude_tools: tuple[str, ...] = ()
    settings: tuple[Setting, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def context_files(self) -> list[Path]:
        return [self.path / n for n in self.context_file_names if (self.path / n).is_file()]


def read_manifest(folder: Path, *, workspace: Path | None = None) -> Manifest:
    """The manifest in ``folder``; ManifestError saying what is wrong otherwise."""
    path = folder / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ManifestError(f"{path} is missing") from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(f"{path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: the top level must be an object")

    def fail(message: str) -> ManifestError:
        return ManifestError(f"{path}: {message}")

    fields = Fields(data, str(path), quote_keys=True)

    def checked(value: Any) -> Any:
        """Stop at the first problem: an extension that is half right is not loaded."""
        if fields.problems:
            raise ManifestError(fields.problems[0])
        return value

    name = checked(
        fields.require("name", _Name, "is required: letters, digits, '-', '_' and '.' (e.g. \"my-extension\")")
    )
    version = checked(fields.require("version", _Version, 'is required and must be a string (e.g. "1.0.0")'))
    servers = checked(fields.take("mcpServers", _Servers, "must be an object of server name -> server settings"))
    context = checked(fields.take("contextFileName", _FileNames, "must be a file name or a list of them"))
    names = (context,) if isinstance(context, str) else tuple(context) if context is not None else ("GEMINI.md",)
    for n in names:
        if not _inside(folder, folder / n):
            raise fail(f"context file {n!r} must be inside the extension's folder")
    exclude = checked(fields.take("excludeTools", list[str], "must be a list of tool names")) or []
    settings = []
    raw_settings = data.get("settings", [])
    for i, s in enumerate(raw_settings if isinstance(raw_settings, list) else [None]):
        if not conforms(s, _SettingEntry):
            raise fail(f"settings[{i}] needs a 'name' and an 'envVar'")
        settings.append(Setting(s["name"], s["envVar"], str(s.get("description", "")), s.get("sensitive") is True))
    description = data.get("description", "")
    variables = {
        "extensionPath": str(folder),
        "workspacePath": str(workspace or ""),
        "/": os.sep,
        "pathSeparator": os.sep,
        **_env_file(folder / ".env"),
    }
    return Manifest(
        name=name,
        version=version,
        path=folder,
        description=description if isinstance(description, str) else "",
        mcp_servers=_hydrate(servers or {}, variables),
        context_file_names=names,
        exclude_tools=tuple(exclude),
        settings=tuple(settings),
        raw=data,
    )


def _hydrate(value: Any, variables: Mapping[str, str]) -> Any:
    """``${extensionPath}``, ``${workspacePath}``, ``${/}`` and the extension's settings filled in; other
    ``${VAR}`` references are left for the MCP layer (which expands the environment)."""
    if isinstance(value, str):
        return _VAR.sub(lambda m: variables.get(m.group(1), m.group(0)), value)
    if isinstance(value, list):
        return [_hydrate(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: _hydrate(v, variables) for k, v in value.items()}
    return value


def _env_file(path: Path) -> dict[str, str]:
    """The extension's settings, as ``KEY=value`` lines in its ``.env`` (where Gemini CLI keeps them)."""
    out: dict[str, str] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return out
    for line in lines:
        key, sep, value = line.strip().partition("=")
        if sep and key and not key.startswith("#"):
            out[key.strip()] = value.strip().strip("'\"")
    return out


def _inside(folder: Path, path: Path) -> bool:
    base = os.path.realpath(folder)
    target = os.path.realpath(path)
    return target == base or target.startswith(base + os.sep)


def read_hooks(manifest: Manifest) -> tuple[dict[str, Any], str | None]:
    """The extension's ``hooks/hooks.json`` (``{"hooks": {event: [...]}}``) with variables filled in."""
    path = manifest.path / "hooks" / "hooks.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return {}, f"Extension {manifest.name}: {path} is not valid JSON: {exc}"
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        return {}, f'Extension {manifest.name}: {path} needs a "hooks" object'
    variables = {"extensionPath": str(manifest.path), "/": os.sep, "pathSeparator": os.sep}
    hydrated: dict[str, Any] = _hydrate(hooks, variables)
    return hydrated, None
