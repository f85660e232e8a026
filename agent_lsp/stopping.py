"""SIGTERM, the way editors stop their agent, ends a server or a headless run as end of input does."""

from __future__ import annotations

import asyncio
import contextlib
import signal

SIGTERM_EXIT = 128 + signal.SIGTERM  # the shell's convention for "ended by SIGTERM"


def cancel_on_sigterm() -> None:
    """Call from the main task: SIGTERM cancels it, so what ``finally`` blocks do at end of input (sessions
    closed, SessionEnd hooks, recordings flushed, scratch folders removed) still happens. By default SIGTERM
    ends the interpreter at once, and none of it would."""
    task = asyncio.current_task()
    if task is None:
        return
    # No signal handlers on Windows event loops, nor outside the main thread: SIGTERM keeps its default there.
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
