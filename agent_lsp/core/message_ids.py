"""Message ids: one per message (the user's, each of the agent's answers and thoughts), on every chunk of it."""

from __future__ import annotations

import os
from dataclasses import replace

from agent_lsp import events as ev


def new_message_id() -> str:
    """128 random bits as hex (as a uuid4's, without building the UUID object: this runs for every message)."""
    return os.urandom(16).hex()


class MessageIds:
    """Gives an id to the events of a stream that carry message text and have none yet: consecutive chunks of the
    same kind (agent text, or thoughts) are one message; any other event between them starts a new one (a tool
    call, the end of a model response, a retry, a notice). An id a producer already set is kept."""

    def __init__(self) -> None:
        self._kind = ""
        self._id = ""

    def __call__(self, event: ev.AgentEvent) -> ev.AgentEvent:
        if isinstance(event, ev.Content | ev.Thought):
            kind = event.kind
            if event.message_id:
                self._kind, self._id = kind, event.message_id
                return event
            if kind != self._kind:
                self._kind, self._id = kind, new_message_id()
            return replace(event, message_id=self._id)
        self._kind = ""
        if isinstance(event, ev.UserMessage) and not event.message_id:
            return replace(event, message_id=new_message_id())
        return event
