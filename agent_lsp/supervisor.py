"""The owner of one connection's background tasks (acp-sdk's TaskSupervisor shape): each task is tracked until it
ends, a failure is logged with its name (never lost in the loop's "exception was never retrieved"), and closing
cancels whatever still runs and waits for it to end. Work started behind a request's answer, a session's second
step, MCP discovery and model refreshes all go through here, so nothing outlives its connection."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")


class TaskSupervisor:
    """Background tasks of one connection (or of one headless run)."""

    def __init__(self, name: str = "agent") -> None:
        self.name = name
        self._tasks: set[asyncio.Task[Any]] = set()  # held until done: the loop keeps only weak references
        self._closed = False

    def spawn(self, coro: Coroutine[Any, Any, T], *, name: str | None = None) -> asyncio.Task[T]:
        """Run ``coro`` as a tracked task. After ``aclose`` nothing new starts (the coroutine is closed unrun)."""
        if self._closed:
            coro.close()
            raise RuntimeError(f"{self.name}: closed, no new background work")
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("%s: background task %s failed", self.name, task.get_name(), exc_info=exc)

    @property
    def running(self) -> int:
        return len(self._tasks)

    async def aclose(self) -> None:
        """Cancel every task still running and wait until they have ended (their ``finally`` blocks ran)."""
        self._closed = True
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
