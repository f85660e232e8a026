"""Whole-file writes that a crash cannot tear: a temp file in the same folder, fsync, then one rename.

Readers see either the old file or the new one, never half of either, even when the process is killed with
SIGKILL mid-write; the fsync makes the new content durable before the rename publishes it, so a power loss
does not leave an empty file under the final name either. Every file the agent writes whole goes through
here (workspace edits, checkpoints, settings, trusted folders, memory); append-only logs do not (see
``store/sessions.py``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any


def write_atomic(
    path: Path, data: bytes, *, exclusive: bool = False, keep_mode: bool = True, sweep: bool = False
) -> None:
    """Replace ``path`` with ``data`` in one step, creating missing parent folders.

    ``exclusive``: fail with FileExistsError instead of replacing an existing file (the name is claimed
    atomically, so two writers racing for one name cannot both win). ``keep_mode``: an existing file keeps
    its permission bits. ``sweep``: remove every temp file a killed writer left in the folder (for the agent's
    own folders, where each record has a new name); otherwise only those of ``path`` itself are removed.
    Raises OSError; on any failure the temp file is removed and ``path`` is untouched.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    mode: int | None = None
    if keep_mode and not exclusive:
        with contextlib.suppress(FileNotFoundError):
            mode = path.stat().st_mode & 0o7777
    _remove_orphans(path.parent, None if sweep else path.name)
    # The writer's pid is in the name, so a later write can tell a temp file a killed writer left behind.
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=f".{os.getpid()}.tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        if exclusive:
            _link_exclusive(tmp, path)
        else:
            os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _remove_orphans(folder: Path, name: str | None) -> None:
    """Delete temp files (of ``name``, or of any file) whose writer process is gone: killed before its rename."""
    if os.name == "nt":
        return  # os.kill(pid, 0) is not a liveness probe there
    target = re.escape(name) if name is not None else r".+"
    pattern = re.compile(rf"\.{target}\.[a-z0-9_]{{8}}\.(\d+)\.tmp")
    try:
        names = [n for n in os.listdir(folder) if n.startswith(".") and n.endswith(".tmp")]
    except OSError:
        return
    for entry in names:
        m = pattern.fullmatch(entry)
        if m is None or _alive(int(m.group(1))):
            continue
        with contextlib.suppress(OSError):
            os.unlink(folder / entry)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists but belongs to someone else
    return True


def _link_exclusive(tmp: str, path: Path) -> None:
    """Publish ``tmp`` as ``path`` only if ``path`` does not exist (a hard link fails on an existing name)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError:
        # A file system without hard links: check, then rename (a race in the same instant is the only risk).
        if path.exists():
            raise FileExistsError(17, "File exists", str(path)) from None
        os.replace(tmp, path)


def json_bytes(value: Any, **options: Any) -> bytes:
    """``value`` as UTF-8 JSON; text with lone surrogates (from a model's ``\\udcxx`` escapes) is written as
    escapes instead of failing, so a record is never lost to one odd character."""
    try:
        return json.dumps(value, ensure_ascii=False, **options).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, ensure_ascii=True, **options).encode("ascii")
