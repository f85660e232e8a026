"""Closing a test's asyncio subprocess: end of input, then terminate, then kill, each step safe when the process
has already exited (an exited process's closed transport raises ProcessLookupError for any signal)."""

from __future__ import annotations

import asyncio
import contextlib

# Long enough for an agent under load to finish its own shutdown; a hang still ends, by terminate then kill.
GRACE_S = 30.0


async def close_process(proc: asyncio.subprocess.Process, grace: float = GRACE_S) -> int:
    """Close stdin, wait ``grace`` for the exit, then terminate and wait again, then kill. Returns the exit code."""
    if proc.stdin is not None and not proc.stdin.is_closing():
        proc.stdin.close()
    for stop in (proc.terminate, proc.kill):
        try:
            return await asyncio.wait_for(proc.wait(), grace)
        except TimeoutError:
            # It may exit between the wait giving up and the signal: then the signal finds nothing to stop.
            with contextlib.suppress(ProcessLookupError):
                stop()
    return await proc.wait()
