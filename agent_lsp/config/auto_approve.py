"""A workspace's auto-approve switches, kept in the user's per-project state (never inside the workspace)."""

from __future__ import annotations

import json
from pathlib import Path

from agent_lsp.config.paths import project_state_dir

FILE_NAME = "auto-approve.json"


def auto_approve_path(project_root: Path) -> Path:
    """``~/.agent-lsp/projects/<id>/auto-approve.json``: beside the project's sessions, checkpoints and plans,
    as Gemini CLI keeps a project's state under its user directory, so a cloned repository cannot switch it on."""
    return project_state_dir(project_root) / FILE_NAME


def load_workspace_kinds(project_root: Path) -> tuple[list[str], str | None]:
    """(the kinds saved for the project, a problem to tell the user or None); a missing file is no kinds."""
    path = auto_approve_path(project_root)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return [], None
    except OSError as exc:
        return [], f"could not read {path}: {exc}"
    try:
        data = json.loads(raw)
    except ValueError as exc:
        return [], f"{path} is not JSON ({exc}); no kinds are auto-approved for this workspace"
    kinds = data.get("kinds") if isinstance(data, dict) else None
    if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
        return [], f'{path}: "kinds" must be a list of names; no kinds are auto-approved for this workspace'
    return kinds, None


def save_workspace_kinds(project_root: Path, kinds: list[str]) -> None:
    """Write the project's kinds (an empty list removes the file); raises OSError when the disk refuses."""
    from agent_lsp.workspace.filesystem import atomic_write

    path = auto_approve_path(project_root)
    if not kinds:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps({"kinds": sorted(kinds)}, indent=2) + "\n")
