"""Builder: the session's hooks, from trusted settings layers and the active extensions' ``hooks/hooks.json``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_lsp import events as ev

if TYPE_CHECKING:
    from agent_lsp.child_env import ChildEnv
    from agent_lsp.config.settings import HooksConfigSettings
    from agent_lsp.extensions.manifest import Manifest
    from agent_lsp.hooks.system import HookSystem


def build_hooks(
    configured: Mapping[str, Any],
    config: HooksConfigSettings,
    *,
    cwd: Path,
    session_id: str,
    transcript: Path | None,
    extensions: Sequence[Manifest],
    notices: list[ev.Notice],
    child_env: ChildEnv,
) -> HookSystem | None:
    """None when hooks are off or none is configured. ``configured`` comes from settings layers already filtered
    by trust (a workspace's only when trusted)."""
    from agent_lsp.extensions.manifest import read_hooks

    raw: dict[str, Any] = dict(configured)
    for manifest in extensions:
        extra, problem = read_hooks(manifest)
        if problem:
            notices.append(ev.Notice("error", problem))
        for event, groups in extra.items():
            old = raw.get(event, [])
            raw[event] = [*old, *groups] if isinstance(groups, list) and isinstance(old, list) else groups
    if not config.enabled or not raw:
        return None
    from agent_lsp.hooks.config import parse_hooks
    from agent_lsp.hooks.system import HookSystem

    commands, problems = parse_hooks(raw, config.disabled)
    notices.extend(ev.Notice("error", f"Settings error: {problem}") for problem in problems)
    if not commands:
        return None
    return HookSystem(
        commands,
        cwd=cwd,
        env=child_env.for_command(),
        session_id=lambda: session_id,
        transcript=lambda: str(transcript) if transcript is not None else "",
    )
