"""A subprocess for a test, killed if the test leaves it running (a hang fails the test, never the suite)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def spawned(
    argv: list[str], *, cwd: Path, env: dict[str, str], stdin: int = subprocess.PIPE, stderr: int = subprocess.DEVNULL
) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=stdin, stdout=subprocess.PIPE, stderr=stderr)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
