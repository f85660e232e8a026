"""Steering: a message sent into the running turn, taken in at its next safe point (before the next model request,
after the current response or tool batch), so the prompt that is running goes on and ends once, at its real end."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from agent_lsp.core.message_ids import new_message_id
from agent_lsp.model.base import Part


@dataclass(frozen=True)
class Steered:
    """A message waiting for the running turn's next safe point; its id is the one its UserMessage will carry."""

    message_id: str
    prompt: str | tuple[Part, ...]
    attachments: tuple[Part, ...] = ()

    @property
    def text(self) -> str:
        prompt = self.prompt
        return prompt if isinstance(prompt, str) else "".join(p.text or "" for p in prompt if not p.thought)


class Steering:
    """The messages waiting to join the running turn. ``open`` while a prompt can still take them in: from its
    start until it has decided to end (the session closes it then, with no await in between, so a message is
    either taken in by this prompt or refused for it, never lost)."""

    def __init__(self, take_in: Callable[[Steered], Awaitable[None]]) -> None:
        self.open = False
        self._waiting: list[Steered] = []
        self._take_in = take_in  # puts one message into the conversation (the session's: event and history)

    def put(self, prompt: str | Sequence[Part], attachments: Sequence[Part] = ()) -> str | None:
        """Queue a message for the running turn: its message id, or None when no turn can take it."""
        if not self.open:
            return None
        steered = Steered(new_message_id(), prompt if isinstance(prompt, str) else tuple(prompt), tuple(attachments))
        self._waiting.append(steered)
        return steered.message_id

    @property
    def waiting(self) -> bool:
        return bool(self._waiting)

    def take(self) -> list[Steered]:
        taken, self._waiting = self._waiting, []
        return taken

    async def take_in(self) -> bool:
        """At a safe point of the running turn: the waiting messages join the conversation, in the order sent;
        True when there were any."""
        taken = self.take()
        for steered in taken:
            await self._take_in(steered)
        return bool(taken)

    def close(self) -> list[Steered]:
        """The prompt ends: no more messages for it; what was still waiting (a cancelled turn's) is returned."""
        self.open = False
        return self.take()
