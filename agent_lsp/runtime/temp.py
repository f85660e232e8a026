"""Sessions' scratch folders (full outputs of truncated tools): made per session, removed on close or at exit."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

_TEMP_DIRS: set[Path] = set()  # made and not yet removed


def new_temp_dir() -> Path:
    path = Path(tempfile.mkdtemp(prefix="agent-lsp-"))
    _TEMP_DIRS.add(path)
    return path


def remove_temp_dir(path: Path) -> None:
    _TEMP_DIRS.discard(path)
    shutil.rmtree(path, ignore_errors=True)


@atexit.register
def _remove_temp_dirs() -> None:
    """Whatever sessions were not closed (the editor went away) still leave nothing behind."""
    for path in list(_TEMP_DIRS):
        remove_temp_dir(path)
