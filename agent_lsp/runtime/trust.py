"""Builder: the folder's trust decision first, then the ``.env`` files and settings layers that trust allows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_lsp import events as ev

if TYPE_CHECKING:
    from agent_lsp.config.loader import LoadedSettings
    from agent_lsp.config.settings import Settings


@dataclass(frozen=True)
class TrustedSettings:
    """What a session may read from its folder: ``env`` includes the ``.env`` files trust allows."""

    cwd: Path
    env: dict[str, str]
    trusted: bool
    reason: str
    loaded: LoadedSettings

    @property
    def settings(self) -> Settings:
        return self.loaded.settings


def load_trusted_settings(
    cwd: Path,
    extra_roots: Sequence[Path],
    *,
    env: Mapping[str, str],
    editor_trust: bool | None,
    overrides: Mapping[str, Any] | None,
    notices: list[ev.Notice],
) -> TrustedSettings:
    """Trust, ``.env`` and settings for ``cwd``; problems are added to ``notices`` (nothing here raises)."""
    from agent_lsp.config.dotenv import load_env_files
    from agent_lsp.config.loader import load_settings, read_folder_trust_enabled
    from agent_lsp.config.trust import decide_trust

    env = dict(env)
    # Trust first, from user/system layers only: a workspace file must never vote on its own trust.
    decision = decide_trust(
        cwd, settings_folder_trust_enabled=read_folder_trust_enabled(env), env=env, editor_trust=editor_trust
    )
    load_env_files([cwd, *extra_roots], trusted=decision.trusted, env=env)
    loaded = load_settings([cwd, *extra_roots], trusted=decision.trusted, env=env, overrides=overrides)
    notices.extend(ev.Notice("error", f"Settings error in {err}") for err in loaded.errors)
    if not decision.trusted:
        notices.append(ev.Notice("warning", f"Workspace not trusted: {decision.reason}"))
    return TrustedSettings(cwd, env, decision.trusted, decision.reason, loaded)
