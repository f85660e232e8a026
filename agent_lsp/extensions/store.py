"""Installed extensions: the ``~/.gemini/extensions`` folder, install/link/uninstall, and Gemini CLI's
``extension-enablement.json`` (per-folder enable/disable rules), shared with Gemini CLI."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_lsp.config.paths import gemini_dir
from agent_lsp.extensions.manifest import INSTALL_METADATA, Manifest, ManifestError, read_manifest

ENABLEMENT = "extension-enablement.json"


def extensions_dir() -> Path:
    return gemini_dir() / "extensions"


@dataclass(frozen=True)
class Installed:
    folder: Path  # under ~/.gemini/extensions
    manifest: Manifest | None
    problem: str | None = None
    linked: bool = False


def installed(workspace: Path | None = None) -> list[Installed]:
    """Every extension folder, read; a broken one carries its problem instead of a manifest."""
    root = extensions_dir()
    if not root.is_dir():
        return []
    out: list[Installed] = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        meta = _metadata(folder)
        linked = meta.get("type") == "link" and isinstance(meta.get("source"), str)
        source = Path(str(meta["source"])) if linked else folder
        try:
            out.append(Installed(folder, read_manifest(source, workspace=workspace), linked=linked))
        except ManifestError as exc:
            out.append(Installed(folder, None, str(exc), linked))
    return out


def install(source: Path, *, link: bool = False) -> Manifest:
    """Copy (or link) the extension at ``source`` into the extensions folder; raises ManifestError/ValueError."""
    source = source.expanduser().resolve()
    manifest = read_manifest(source)
    target = extensions_dir() / manifest.name
    if target.exists():
        raise ValueError(f"an extension named {manifest.name!r} is already installed ({target}); uninstall it first")
    target.parent.mkdir(parents=True, exist_ok=True)
    if link:
        target.mkdir()
    else:
        shutil.copytree(source, target, ignore=shutil.ignore_patterns(".git", "node_modules"))
    meta = {"source": str(source), "type": "link" if link else "local"}
    (target / INSTALL_METADATA).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return manifest


def uninstall(name: str) -> Path:
    match = find(name)
    if match is None:
        raise ValueError(f"no extension named {name!r} is installed")
    shutil.rmtree(match.folder)
    rules = _read_rules()
    if rules.pop(name, None) is not None:
        _write_rules(rules)
    return match.folder


def find(name: str) -> Installed | None:
    for item in installed():
        if (item.manifest.name if item.manifest else item.folder.name) == name:
            return item
    return None


def _metadata(folder: Path) -> dict[str, object]:
    try:
        value = json.loads((folder / INSTALL_METADATA).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


# ---- enablement: {"name": {"overrides": ["/home/me/*", "!/home/me/work/*"]}}, the last matching rule wins


def is_enabled(name: str, folder: Path, only: Sequence[str] | None = None) -> bool:
    """``only`` is the command line's ``-e`` list (``["none"]``: none); else the rules for ``folder``."""
    if only:
        wanted = [n.lower() for n in only]
        return wanted != ["none"] and name.lower() in wanted
    enabled = True
    target = _slashed(str(folder.resolve()))
    for rule in _read_rules().get(name, {}).get("overrides", []):
        negated = rule.startswith("!")
        base = rule[1:] if negated else rule
        if _rule_regex(base).match(target):
            enabled = not negated
    return enabled


def set_enabled(name: str, enabled: bool, scope_folder: Path) -> Path:
    """Add the rule "enabled (or not) in ``scope_folder`` and below", replacing rules it supersedes."""
    rules = _read_rules()
    base = _slashed(str(scope_folder.resolve())) + "*"
    new = base if enabled else "!" + base
    kept = []
    for rule in rules.get(name, {}).get("overrides", []):
        plain = rule.lstrip("!")
        if plain == base or _rule_regex(base).match(plain.rstrip("*")):
            continue  # the same folder, or one below it: the new rule decides for them now
        kept.append(rule)
    rules[name] = {"overrides": [*kept, new]}
    return _write_rules(rules)


def _rule_regex(rule: str) -> re.Pattern[str]:
    body = re.escape(rule.rstrip("*"))
    return re.compile(f"^{body}.*$" if rule.endswith("*") else f"^{body}$")


def _slashed(path: str) -> str:
    path = path.replace("\\", "/")
    return ("/" if not path.startswith("/") else "") + path.rstrip("/") + "/"


def _read_rules() -> dict[str, dict[str, list[str]]]:
    try:
        value = json.loads((extensions_dir() / ENABLEMENT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(value, dict):
        return {}
    return {
        k: {"overrides": [r for r in v.get("overrides", []) if isinstance(r, str)]}
        for k, v in value.items()
        if isinstance(v, dict)
    }


def _write_rules(rules: dict[str, dict[str, list[str]]]) -> Path:
    path = extensions_dir() / ENABLEMENT
    path.parent.mkdir(parents=True, exist_ok=True)
    from agent_lsp.workspace.filesystem import atomic_write

    atomic_write(path, json.dumps(rules, indent=2) + "\n")
    return path


def active(workspace: Path, only: Sequence[str] | None = None) -> tuple[list[Manifest], list[str]]:
    """The extensions enabled for ``workspace``, and problems (broken manifests, unknown ``-e`` names)."""
    found = installed(workspace)
    problems = [f"Extension skipped: {i.problem}" for i in found if i.problem]
    manifests = [i.manifest for i in found if i.manifest is not None]
    for name in only or ():
        if name.lower() != "none" and not any(m.name.lower() == name.lower() for m in manifests):
            problems.append(f"Extension not found: {name}")
    return [m for m in manifests if is_enabled(m.name, workspace, only)], problems
