"""A session's event stream: the task that runs a prompt, the queue its consumer reads, the sinks that observe it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

from agent_lsp import events as ev
from agent_lsp.core.message_ids import MessageIds
from agent_lsp.core.ports import EventSink

log = logging.getLogger(__name__)


class EventStream:
    """Runs one prompt at a time as an asyncio task and hands its events to the consumer, in order.

    Cancelling the task is the only way to stop a prompt; the prompt's own ``finally`` does the cleanup."""

    def __init__(self, sinks: Sequence[EventSink] = ()) -> None:
        self.sinks = list(sinks)
        self._task: asyncio.Task[None] | None = None
        self._queue: asyncio.Queue[ev.AgentEvent | None] | None = None
        self._ids = MessageIds()  # every message's chunks get its id here, before anyone sees them

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def cancel(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()

    def emit(self, event: ev.AgentEvent) -> None:
        """Put an event on the running prompt's stream and give it to every sink (called once per event: keep it
        lean). Message text without an id gets its message's id first (core/message_ids.py)."""
        event = self._ids(event)
        if self._queue is not None:
            self._queue.put_nowait(event)
        for sink in self.sinks:
            try:
                sink(event)
            except Exception:  # an observer must never break the conversation
                log.exception("event sink failed")

    async def delivered(self) -> None:
        """Wait until the prompt's consumer has handled every event emitted so far.

        Whatever talks to the user outside the stream (a permission request) awaits this first, so the
        tool call and the text the model wrote before it reach the editor before the question does."""
        if self._queue is not None:
            await self._queue.join()

    async def run(
        self, body: Callable[[], Awaitable[None]], unstarted: Callable[[], Sequence[ev.AgentEvent]]
    ) -> AsyncIterator[ev.AgentEvent]:
        """Run ``body`` as the prompt's task and yield what it emits until it returns. ``unstarted`` gives the
        events that end the stream of a task cancelled before its first step (``body`` never ran)."""
        if self.running:
            raise RuntimeError("a prompt is already running in this session")
        queue: asyncio.Queue[ev.AgentEvent | None] = asyncio.Queue()
        self._queue = queue
        started: list[bool] = []  # this prompt's own flag: a done-callback may run after the next prompt began

        async def step() -> None:
            started.append(True)
            try:
                await body()
            finally:
                queue.put_nowait(None)

        task = asyncio.create_task(step())
        task.add_done_callback(lambda _t: self._end_unstarted(queue, started, unstarted))
        self._task = task
        try:
            while (item := await queue.get()) is not None:
                yield item
                # The consumer asked for the next event, so it has handled this one (see ``delivered``).
                queue.task_done()
            queue.task_done()
        finally:
            if not task.done():
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            self._task = None

    def _end_unstarted(
        self,
        queue: asyncio.Queue[ev.AgentEvent | None],
        started: list[bool],
        unstarted: Callable[[], Sequence[ev.AgentEvent]],
    ) -> None:
        """A task cancelled before its first step never runs the prompt's cleanup: end its stream here."""
        if started:
            return
        for event in unstarted():
            queue.put_nowait(event)
            for sink in self.sinks:
                sink(event)
        queue.put_nowait(None)
