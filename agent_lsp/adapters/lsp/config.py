"""Editor configuration (``initializationOptions``, ``workspace/didChangeConfiguration``) → session setup.

Accepts ``{"agentLsp": {...}}`` or the same keys flat. Known keys: model, approvalMode, checkpointing,
mcpServers, trustWorkspace, settings (nested like settings.json); any other key is taken as a nested
settings override too. Editors fill these channels from project files (docs/security.md), so only what narrows
or cannot widen the agent's reach is taken (config/provenance.py): ``trustWorkspace: false`` but never ``true``,
approval mode ``plan`` or ``default``, no MCP servers, and the settings keys listed there; the rest is ignored
with one notice naming each key and where to set it. ``trustWorkspace: true`` only withdraws an earlier ``false``
(VS Code's trust granted later). API keys are dropped here too, and never echoed.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from agent_lsp.config.provenance import WHERE_INSTEAD, editor_overrides, narrowing_mode
from agent_lsp.fields import Fields
from agent_lsp.vocabulary import APPROVAL_MODES, ApprovalMode, parse_mode

log = logging.getLogger(__name__)

SECTION = "agentLsp"
_SECRET = re.compile(r"api[_-]?key|^key$|secret|password|credential", re.I)
_KNOWN = {"model", "approvalMode", "approval_mode", "checkpointing", "mcpServers", "trustWorkspace", "settings"}


@dataclass(frozen=True)
class LspConfig:
    model: str | None = None
    approval_mode: ApprovalMode | None = None
    checkpointing: bool | None = None
    mcp_servers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # always empty: see above
    trust: bool | None = None  # False (the editor does not trust the folder) or None: never True
    trust_withdrawn: bool = False  # trustWorkspace: true came: an earlier false no longer holds
    overrides: Mapping[str, Any] = field(default_factory=dict)
    problems: tuple[str, ...] = ()  # for window/showMessage: what was ignored and why (never values)


def parse_config(raw: Any) -> LspConfig:
    """An LspConfig from whatever the editor sent; unusable parts are reported in ``problems``."""
    if not isinstance(raw, Mapping):
        return LspConfig()
    section = raw.get(SECTION, raw)
    if section is None:  # a valid workspace/configuration answer (Eglot's when nothing is set): no settings
        return LspConfig()
    if not isinstance(section, Mapping):
        return LspConfig(problems=(f"'{SECTION}' must be an object",))
    fields = Fields(section)
    model = section.get("model")
    if isinstance(model, Mapping):
        model = model.get("name")  # nested as in settings.json
    model = fields.check("model", model, str, "must be a string")
    raw_mode = fields.lookup("approvalMode", ("approval_mode",))[1]
    mode: ApprovalMode | None = None
    if raw_mode is not None:
        try:
            mode = parse_mode(raw_mode)
        except ValueError:
            fields.problem("approvalMode", f"must be one of {', '.join(APPROVAL_MODES)}")  # never the value
    checkpointing = section.get("checkpointing")
    if isinstance(checkpointing, Mapping):
        checkpointing = checkpointing.get("enabled")  # nested as in settings.json
    checkpointing = fields.check("checkpointing", checkpointing, bool, "must be true or false")
    servers = fields.check("mcpServers", section.get("mcpServers") or {}, Mapping, "must be an object") or {}
    trust = fields.take("trustWorkspace", bool, "must be true or false")
    widening: list[str] = []
    if mode is not None and not narrowing_mode(mode):
        widening.append(f"approvalMode ({mode})")
        mode = None
    withdrawn = trust is True
    if trust:
        trust = None  # the editor does not object: a fact that trusts nothing by itself (config/trust.py)
    widening.extend(f"mcpServers.{name}" for name in servers)
    overrides: dict[str, Any] = {}
    nested = section.get("settings")
    if isinstance(nested, Mapping):
        overrides.update(nested)
    for key, value in section.items():
        if key not in _KNOWN:
            overrides[key] = value
    dropped: list[str] = []
    overrides = _without_secrets(overrides, "", dropped)
    overrides = editor_overrides(overrides, widening)
    problems = fields.problems
    if dropped:
        problems.append(
            "ignored " + ", ".join(dropped) + ": set API keys in the environment or a settings file, not the editor"
        )
    if widening:
        problems.append(
            "ignored " + ", ".join(widening) + ": editor settings can come from the project you opened "
            "(.vscode/settings.json, .dir-locals.el, .zed/settings.json), so they may only narrow what the agent "
            "does. " + WHERE_INSTEAD
        )
    return LspConfig(
        model=model,
        approval_mode=mode,
        checkpointing=checkpointing,
        trust=trust,
        trust_withdrawn=withdrawn,
        overrides=overrides,
        problems=tuple(problems),
    )


def merge(base: LspConfig, update: LspConfig) -> LspConfig:
    """``update`` wins where it says something; overrides merge one level deep."""
    overrides = dict(base.overrides)
    for key, value in update.overrides.items():
        if isinstance(value, Mapping) and isinstance(overrides.get(key), Mapping):
            overrides[key] = {**overrides[key], **value}
        else:
            overrides[key] = value
    return replace(
        base,
        model=update.model or base.model,
        approval_mode=update.approval_mode or base.approval_mode,
        checkpointing=update.checkpointing if update.checkpointing is not None else base.checkpointing,
        mcp_servers={**base.mcp_servers, **update.mcp_servers},
        trust=None if update.trust_withdrawn else update.trust if update.trust is not None else base.trust,
        overrides=overrides,
        problems=update.problems,
    )


def _without_secrets(value: Mapping[str, Any], path: str, dropped: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        where = f"{path}.{key}" if path else str(key)
        if _SECRET.search(str(key)):
            dropped.append(where)
            continue
        out[key] = _without_secrets(item, where, dropped) if isinstance(item, Mapping) else item
    return out
