"""Gemini CLI's legacy flat ("v1") settings keys, mapped onto the nested ("v2") shape every layer is read in."""

from __future__ import annotations

from agent_lsp.config.raw import Raw, deep_merge, prune_none, set_path

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


def normalize(raw: Raw) -> Raw:
    """Map legacy flat keys onto the nested shape. Nested keys written in the same file win over flat ones.
    ``null`` values are dropped: editors send them for "not set"."""
    v1: Raw = {}
    rest: Raw = {}
    for key, value in prune_none(raw).items():
        target = V1_KEYS.get(key)
        # "model" is both a v1 key (the model name) and a v2 section: an object means v2.
        is_v2_section = key == "model" and isinstance(value, dict)
        if target and not is_v2_section:
            set_path(v1, target, value)
        else:
            rest[key] = value
    merged = deep_merge(v1, rest) if v1 else rest
    model = merged.get("model")
    if isinstance(model, dict):
        newer = model.get("compressionThreshold")
        chat = model.get("chatCompression")
        has_old = isinstance(chat, dict) and "contextPercentageThreshold" in chat
        if isinstance(newer, int | float) and not isinstance(newer, bool) and not has_old:
            set_path(merged, "model.chatCompression.contextPercentageThreshold", newer)
    return merged
