"""Builder: the session's Policy (approval mode, settings rules, policy files) and the "allow and save" writer."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lsp import events as ev
from agent_lsp.vocabulary import ApprovalMode, mode_refusal

if TYPE_CHECKING:
    from agent_lsp.child_env import ChildEnv
    from agent_lsp.config.settings import McpSettings, SecuritySettings, Settings, ToolsSettings
    from agent_lsp.tools.policy import Policy

log = logging.getLogger(__name__)


def child_env_of(settings: Settings) -> ChildEnv:
    """What the session's child processes inherit: security.environmentVariableRedaction, and the variable
    ``model.apiKeyEnv`` names as the endpoint's key kept out like the built-in key variables."""
    from agent_lsp.child_env import ChildEnv

    redaction = settings.security.environment_variable_redaction
    key = settings.model.api_key_env
    return ChildEnv.of(
        enabled=redaction.enabled,
        allowed=redaction.allowed,
        blocked=redaction.blocked,
        key_variables=[key] if key else (),
    )


def start_mode(
    asked: ApprovalMode,
    security: SecuritySettings,
    notices: list[ev.Notice],
    *,
    trusted: bool = True,
    secure_mode: bool = False,
) -> ApprovalMode:
    """The mode asked for (adapter, command line, else settings), unless settings refuse yolo or the folder is
    not trusted to auto-approve. Decided before the policy is built: a new session's answer names it."""
    if asked == "yolo" and (security.disable_yolo_mode or secure_mode):
        which = "admin.secureModeEnabled" if secure_mode else "security.disableYoloMode"
        notices.append(ev.Notice("warning", f"yolo mode is disabled by settings ({which}); using default"))
        return "default"
    refused = mode_refusal(asked, trusted=trusted)
    if refused:
        notices.append(ev.Notice("warning", f"Approval mode {asked} refused: {refused}"))
        return "default"
    return asked


def build_policy(
    *,
    mode: ApprovalMode,
    cwd: Path,
    env: Mapping[str, str],
    trusted: bool,
    interactive: bool,
    tools: ToolsSettings,
    mcp: McpSettings,
    policy_paths: Sequence[Path],
    allowed_tools: Sequence[str],
    allowed_mcp_server_names: Sequence[str] | None,
    excluded_by_extensions: Sequence[str],
    notices: list[ev.Notice],
    security: SecuritySettings | None = None,
    secure_mode: bool = False,  # admin.secureModeEnabled: both switches below
) -> Policy:
    """Rules from settings, command-line flags, extensions and policy files (only a trusted folder's own)."""
    from agent_lsp.config.paths import plans_dir
    from agent_lsp.policy.defaults import plan_file_rules
    from agent_lsp.policy.loader import load_policies, policy_sources
    from agent_lsp.tools.policy import Policy

    policies = load_policies(policy_sources(cwd, trusted=trusted, policy_paths=policy_paths, env=env))
    notices.extend(ev.Notice("error", str(problem)) for problem in policies.errors)
    policy = Policy(
        mode="default",
        core=tools.core,
        allowed=[*tools.allowed, *allowed_tools],
        exclude=[*tools.exclude, *excluded_by_extensions],
        trusted=trusted,
        interactive=interactive,
        rules=[*plan_file_rules(plans_dir(cwd).resolve()), *policies.rules],
        mcp_allowed=allowed_mcp_server_names if allowed_mcp_server_names is not None else mcp.allowed,
        mcp_excluded=mcp.excluded,
        disable_yolo=secure_mode or (security is not None and security.disable_yolo_mode),
        disable_always_allow=secure_mode or (security is not None and security.disable_always_allow),
    )
    refused = policy.set_mode(mode)
    if refused:
        notices.append(ev.Notice("warning", f"Approval mode {mode} refused: {refused}"))
    if interactive and trusted:  # a headless run has nobody who switched anything on for it
        _workspace_auto_approve(policy, cwd, notices)
    return policy


def _workspace_auto_approve(policy: Policy, cwd: Path, notices: list[ev.Notice]) -> None:
    """The kinds an editor switched on for this workspace (kept in the user's per-project state)."""
    from agent_lsp.config.auto_approve import load_workspace_kinds
    from agent_lsp.policy.auto_approve import parse_kinds

    names, problem = load_workspace_kinds(cwd)
    try:
        kinds = parse_kinds(names)
    except ValueError as exc:
        problem, kinds = f"auto-approve for this workspace ignored: {exc}", frozenset()
    if problem:
        notices.append(ev.Notice("warning", problem))
    if kinds:
        policy.set_auto_approve("workspace", kinds)


def save_allowed_rules(rules: list[str]) -> None:
    """ "Allow always and save": append allow rules to ~/.gemini/policies/auto-saved.toml, the file Gemini CLI
    0.61 saves them in (user tier, priority 950), so both agents honour them."""
    from agent_lsp.policy.loader import user_policies_dir
    from agent_lsp.policy.settings_rules import parse_entry
    from agent_lsp.workspace.filesystem import atomic_write

    path = user_policies_dir() / "auto-saved.toml"
    try:
        existing = path.read_text(encoding="utf-8") if path.exists() else ""
    except OSError as exc:
        log.warning("could not update %s: %s", path, exc)
        return
    blocks = []
    for entry in rules:
        name, prefix = parse_entry(entry)
        lines = ["[[rule]]", f"toolName = {json.dumps(name)}"]
        if prefix:
            lines.append(f"commandPrefix = {json.dumps(prefix)}")
        lines += ['decision = "allow"', "priority = 950"]
        block = "\n".join(lines)
        if block not in existing:
            blocks.append(block)
    if not blocks:
        return
    head = existing.rstrip("\n") + "\n\n" if existing.strip() else ""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, head + "\n\n".join(blocks) + "\n")
