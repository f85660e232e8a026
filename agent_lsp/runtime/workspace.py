"""Builder: the session's workspace roots (folder, editor roots, --include-directories, settings) and scratch."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lsp.workspace.roots import Workspace

if TYPE_CHECKING:
    from agent_lsp.config.settings import ContextSettings


def build_workspace(
    cwd: Path,
    extra_roots: Sequence[Path],
    include_directories: Sequence[Path],
    context: ContextSettings,
    temp_dir: Path,
) -> Workspace:
    """Every root that exists (``cwd`` alone when none does); the temp folder is readable but not a root."""
    roots = [cwd, *extra_roots, *(cwd / p for p in include_directories)]
    for extra in context.include_directories:
        p = Path(os.path.expanduser(extra))
        roots.append(p if p.is_absolute() else cwd / p)
    return Workspace([r for r in roots if r.exists()] or [cwd], extra_readable=[temp_dir])
