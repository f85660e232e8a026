"""Where things live on disk: Gemini CLI's user dir (shared with it) and agent-lsp's own state dir."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def gemini_dir() -> Path:
    """``~/.gemini``: settings.json, GEMINI.md, trustedFolders.json, .env — shared with Gemini CLI."""
    override = os.environ.get("GEMINI_CLI_HOME")
    return Path(override) / ".gemini" if override else home() / ".gemini"


def state_dir() -> Path:
    """agent-lsp's own state (sessions, checkpoints, telemetry): ``$AGENT_LSP_HOME`` or ``~/.agent-lsp``.

    Kept apart from ``~/.gemini`` because our recordings are not Gemini CLI's format."""
    override = os.environ.get("AGENT_LSP_HOME")
    return Path(override) if override else home() / ".agent-lsp"


def project_id(project_root: Path) -> str:
    return hashlib.sha256(str(project_root.resolve()).encode()).hexdigest()[:16]


def project_state_dir(project_root: Path) -> Path:
    """Per-project state: sessions/, checkpoints/, shadow-git/ live under here."""
    return state_dir() / "projects" / project_id(project_root)


def plans_dir(project_root: Path) -> Path:
    """Where plan mode writes its plans (``<name>.md``) and ``exit_plan_mode`` reads them."""
    return project_state_dir(project_root) / "plans"
