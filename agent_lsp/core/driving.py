"""Driving one prompt's stream: every event handed to its consumer in order, and how the turn ended."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from agent_lsp import events as ev


@dataclass(frozen=True)
class TurnEnd:
    """How a prompt ended: the reason of its Stop, and the Error that ended it (if one did)."""

    stop: ev.StopReason
    error: ev.Error | None = None


async def drive(stream: AsyncIterator[ev.AgentEvent], deliver: Callable[[ev.AgentEvent], Awaitable[None]]) -> TurnEnd:
    """Hand each event of ``stream`` to ``deliver`` (awaited: a slow reader slows the stream, never reorders it);
    the stream is closed however this ends, which cancels its prompt if it still runs."""
    stop: ev.StopReason = "end_turn"
    error: ev.Error | None = None
    try:
        async for event in stream:
            if isinstance(event, ev.Error):
                error = event
            elif isinstance(event, ev.Stop):
                stop = event.reason
            await deliver(event)
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()
    return TurnEnd(stop, error)
