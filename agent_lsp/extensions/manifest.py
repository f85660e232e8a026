"""Reading ``gemini-extension.json``: the fields agent-lsp uses, checked, with Gemini CLI's ``${...}`` variables."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MANIFEST = "gemini-extension.json"
INSTALL_METADATA = ".gemini-extension-install.json"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_VAR = re.compile(r"\$\{([^}]+)\}")


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

    name, version = data.get("name"), data.get("version")
    if not isinstance(name, str) or not _NAME.match(name):
        raise fail("'name' is required: letters, digits, '-', '_' and '.' (e.g. \"my-extension\")")
    if not isinstance(version, str) or not version.strip():
        raise fail("'version' is required and must be a string (e.g. \"1.0.0\")")
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict) or not all(isinstance(v, dict) for v in servers.values()):
        raise fail("'mcpServers' must be an object of server name -> server settings")
    context = data.get("contextFileName", "GEMINI.md")
    names = (context,) if isinstance(context, str) else context
    if not isinstance(names, list | tuple) or not all(isinstance(n, str) and n for n in names):
        raise fail("'contextFileName' must be a file name or a list of them")
    for n in names:
        if not _inside(folder, folder / n):
            raise fail(f"context file {n!r} must be inside the extension's folder")
    exclude = data.get("excludeTools", [])
    if not isinstance(exclude, list) or not all(isinstance(t, str) for t in exclude):
        raise fail("'excludeTools' must be a list of tool names")
    settings = []
    for i, s in enumerate(data.get("settings", []) if isinstance(data.get("settings", []), list) else [None]):
        if not isinstance(s, dict) or not isinstance(s.get("name"), str) or not isinstance(s.get("envVar"), str):
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
        mcp_servers=_hydrate(servers, variables),
        context_file_names=tuple(names),
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
