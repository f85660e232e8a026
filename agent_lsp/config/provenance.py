"""Where a setting may come from: what a source a repository can fill may set (docs/security.md, "Trust model").

The user's own sources (user and system settings files, trustedFolders.json, the command line, the user's act
in a UI) may set anything. An editor's configuration channels (``initializationOptions``,
``workspace/configuration``, ``didChangeConfiguration``) are filled from project files by some editors (Zed's
``.zed/settings.json``, Emacs's ``.dir-locals.el`` through ``eglot-workspace-configuration``, a workspace's
``.vscode/settings.json``), so from them only what cannot widen the agent's reach is taken: the keys below, and
an approval mode no more permissive than ``default``. A trusted folder's own settings files are the user's word
(trusting it was); even there, the switches that only exist to hold the agent back can only be turned on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_lsp.vocabulary import BY_PERMISSIVENESS, ApprovalMode

# settings.json paths an editor channel may set (a path covers everything below it). Each changes how the agent
# works, never what it may reach: the model, checkpoints, retries, output limits, memory file names, compression.
EDITOR_SETTABLE: frozenset[tuple[str, ...]] = frozenset(
    {
        ("model", "name"),
        ("model", "contextWindow"),
        ("model", "maxOutputTokens"),
        ("model", "models"),
        ("model", "prices"),
        ("model", "chatCompression"),
        ("general", "checkpointing"),
        ("general", "maxAttempts"),
        ("general", "defaultApprovalMode"),  # only a narrowing mode: see narrowing_mode
        ("tools", "truncateToolOutputThreshold"),
        ("tools", "useRipgrep"),
        ("tools", "shell", "inactivityTimeout"),
        ("context", "fileName"),
        ("ui",),
        ("hooksConfig", "notifications"),
    }
)

# Settings that only hold the agent back: a trusted folder's files may turn them on, never off.
_ONLY_ON: tuple[tuple[str, ...], ...] = (
    ("security", "disableYoloMode"),
    ("security", "disableAlwaysAllow"),
    ("security", "environmentVariableRedaction", "enabled"),
    ("admin", "secureModeEnabled"),
)
# Settings that widen even in a trusted folder's own files: they hand the user's keys to the folder's commands.
_NEVER_FROM_WORKSPACE: tuple[tuple[str, ...], ...] = (
    ("security", "environmentVariableRedaction", "allowed"),
    ("security", "enablePermanentToolApproval"),
)

WHERE_INSTEAD = (
    "Set them where only you can: the mode picker (or general.defaultApprovalMode in ~/.gemini/settings.json) for "
    "the approval mode, ~/.gemini/trustedFolders.json (or AGENT_LSP_TRUST_WORKSPACE=true) to trust a folder, and "
    "~/.gemini/settings.json for MCP servers, hooks, tool allow-lists, the model endpoint and the rest "
    "(docs/security.md)."
)


def narrowing_mode(mode: ApprovalMode) -> bool:
    """Whether ``mode`` approves no more than ``default`` does (plan, default)."""
    return BY_PERMISSIVENESS.index(mode) <= BY_PERMISSIVENESS.index("default")


def _settable(path: tuple[str, ...]) -> bool:
    return any(path[: len(allowed)] == allowed for allowed in EDITOR_SETTABLE)


def editor_overrides(value: Mapping[str, Any], ignored: list[str], prefix: str = "") -> dict[str, Any]:
    """The part of editor-sent settings (nested like settings.json) an editor channel may set; every key left out
    is added to ``ignored`` (dotted, never its value)."""
    return _keep(value, (), ignored, prefix)


def _keep(value: Mapping[str, Any], path: tuple[str, ...], ignored: list[str], prefix: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        here = (*path, str(key))
        if _settable(here):
            if here == ("general", "defaultApprovalMode") and not _narrowing_raw(item):
                ignored.append(prefix + ".".join(here))
                continue
            out[key] = item
        elif isinstance(item, Mapping) and any(a[: len(here)] == here for a in EDITOR_SETTABLE):
            kept = _keep(item, here, ignored, prefix)
            if kept:
                out[key] = kept
        else:
            ignored.append(prefix + ".".join(here))
    return out


def _narrowing_raw(value: Any) -> bool:
    from agent_lsp.vocabulary import parse_mode

    try:
        return narrowing_mode(parse_mode(value))
    except (ValueError, TypeError):
        return True  # not a mode at all: validation reports it


def workspace_layer_problems(raw: dict[str, Any]) -> list[tuple[str, str]]:
    """Keys a trusted folder's settings file may not set as written, removed from ``raw``: (key, why) pairs."""
    from agent_lsp.config.raw import get_path, pop_path

    found: list[tuple[str, str]] = []
    for path in _ONLY_ON:
        if get_path(raw, path) is False:
            found.append((".".join(path), "can only be turned on by a workspace's settings; key ignored"))
            pop_path(raw, path)
    for path in _NEVER_FROM_WORKSPACE:
        if get_path(raw, path) not in (None, [], False):
            found.append((".".join(path), "can only be set in user or system settings; key ignored"))
            pop_path(raw, path)
    return found
