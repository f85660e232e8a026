"""An open session as every front end drives it: the runtime's opening of it, its model picker, its prompt gate,
the one prompt driver and the one rule by which its events become updates (live and replayed).

The rules of the gate are the same over ACP and LSP, so they are written once here: one prompt at a time, claimed
the moment the request arrives (before its first ``await``, so a second prompt sent right behind the first is
refused); a cancel that arrives before the turn has started (while the session is still being built, or the
editor's progress bar created) makes the turn end ``cancelled`` as soon as it would start. Each adapter subclasses
``LiveSession`` with only what its wire needs (ACP: the session's channel; LSP: the prompt's request id and
progress token), gives ``run_prompt`` its delivery, and maps a ``Refused`` to its own error answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agent_lsp import events as ev
from agent_lsp.adapters.choices import config_options
from agent_lsp.adapters.updates import Update, UpdateState, to_updates
from agent_lsp.core.driving import TurnEnd, drive
from agent_lsp.model.base import Part

if TYPE_CHECKING:
    from agent_lsp.runtime import SessionHandle, SessionOpening
    from agent_lsp.vocabulary import ErrorMeaning

BUSY = "A prompt is already running in this session; cancel it first"
PromptInput = tuple[str | list[Part], list[Part]]  # (what the user typed, what the editor attached)


class Refused(Exception):
    """A request refused before its turn ran (the session could not be opened, images the model cannot read, a
    bad content block): each adapter answers it with its code for ``meaning`` and this message."""

    def __init__(self, meaning: ErrorMeaning, message: str) -> None:
        super().__init__(message)
        self.meaning: ErrorMeaning = meaning


class UpdateWire(Protocol):
    """How one front end writes one session's updates."""

    def update(self, update: Update) -> None: ...

    def text(self, update: Update) -> None:
        """Streamed text: may be merged with the next text within a frame (adapters/coalesce.py)."""
        ...

    async def drain(self) -> None:
        """Wait until the client has read what was written (a wire that writes synchronously yields once)."""
        ...


def send_event(event: ev.AgentEvent, state: UpdateState, wire: UpdateWire, *, replay: bool = False) -> UpdateState:
    """The one delivery rule: an event's updates in order; the model's streamed text as mergeable text."""
    updates, state = to_updates(event, state, replay=replay)
    if isinstance(event, ev.Content) and len(updates) == 1:
        wire.text(updates[0])
    else:
        for update in updates:
            wire.update(update)
    return state


async def replay(events: Iterable[ev.AgentEvent], state: UpdateState, wire: UpdateWire) -> None:
    """A loaded session's recorded events, delivered by the live rule and at the pace the client reads: the wire
    is drained after each event (over ACP and LSP alike), so a long history never piles up in memory or holds the
    loop. The session's live state is left as it was: a past call left open must not linger in it."""
    for event in events:
        state = send_event(event, state, wire, replay=True)
        await wire.drain()


@dataclass(kw_only=True)
class LiveSession:
    """One open session of a connection. Its answer goes out from the opening's preview; what needs the session
    itself awaits ``opened()``."""

    opening: SessionOpening
    models: list[tuple[str, str]] | None = None  # the model picker: what the endpoints offer
    prompting: bool = False  # a prompt holds the session (from its request's arrival until it is answered)
    cancel_pending: bool = False  # the prompt holding the session was cancelled before its turn started

    @property
    def id(self) -> str:
        return self.opening.preview.session_id

    @property
    def ready(self) -> SessionHandle | None:
        """The session if it is built (None while its tools and memory load, or if building it failed)."""
        return self.opening.ready

    async def opened(self) -> SessionHandle:
        """The session once built; ``Refused`` saying why when building it failed (a bug or a broken disk, not a
        setting: settings problems are notices)."""
        try:
            return await self.opening.handle()
        except Exception as exc:
            raise Refused("internal", f"This session could not be opened: {exc}") from exc

    def claim(self) -> bool:
        """Claim the session for a prompt whose request just arrived; False when a prompt already holds it (or
        the built session runs one). Call before the first ``await``; ``run_prompt`` releases it."""
        handle = self.opening.ready
        if self.prompting or (handle is not None and handle.session.running):
            return False
        self.prompting, self.cancel_pending = True, False
        return True

    def release(self) -> None:
        self.prompting = self.cancel_pending = False

    def cancel(self) -> None:
        """Cancel the running turn, or the claimed one about to start (it then answers ``cancelled``)."""
        handle = self.opening.ready
        if handle is not None and handle.session.running:
            handle.session.cancel()
        elif self.prompting:
            self.cancel_pending = True

    async def run_prompt(
        self,
        read: Callable[[], Awaitable[PromptInput]],
        deliver: Callable[[ev.AgentEvent], Awaitable[None]],
        *,
        prepare: Callable[[SessionHandle], Awaitable[None]] | None = None,
        commands_changed: Callable[[SessionHandle], None] | None = None,
    ) -> TurnEnd:
        """Run one prompt of a claimed session, in the one order every front end follows: await the built
        session, ``read`` the prompt, refuse images, audio or PDF the model cannot take (before anything reaches it),
        ``prepare`` (the front end's own start: a progress bar, held notices), honour a cancel that came before
        the turn, tell ``commands_changed`` if a custom command file changed, then ``deliver`` each event. The
        session is released however this ends; refusals raise ``Refused``."""
        try:
            handle = await self.opened()
            prompt, attachments = await read()
            parts = [*([] if isinstance(prompt, str) else prompt), *attachments]
            refused = await handle.refused_inputs(parts)
            if refused:
                raise Refused("invalid_params", refused)
            if prepare is not None:
                await prepare(handle)
            if self.cancel_pending:
                return TurnEnd("cancelled")
            if handle.refresh_commands() and commands_changed is not None:
                commands_changed(handle)
            return await drive(handle.session.send(prompt, attachments=attachments), deliver)
        finally:
            self.release()

    async def refresh_models(self, handle: SessionHandle) -> bool:
        """Ask the endpoints for the picker's models; True when the list changed (the adapter tells the editor)."""
        models = await handle.model_choices()
        changed = models != self.models
        self.models = models
        return changed

    async def models_refreshed(self, handle: SessionHandle) -> Update | None:
        """Ask the endpoints for their models (behind a session's answer); the ``config_option_update`` to send
        when the picker changed, else None."""
        if not await self.refresh_models(handle):
            return None
        session = handle.session
        return {
            "sessionUpdate": "config_option_update",
            "configOptions": config_options(session.model, session.policy.mode, self.models),
        }
