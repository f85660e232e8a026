"""An open session as both adapters track it: the runtime's opening of it, its model picker and its prompt gate.

The rules of the gate are the same over ACP and LSP, so they are written once here: one prompt at a time, claimed
the moment the request arrives (before its first ``await``, so a second prompt sent right behind the first is
refused); a cancel that arrives before the turn has started (while the session is still being built, or the
editor's progress bar created) makes the turn end ``cancelled`` as soon as it would start. Each adapter subclasses
``LiveSession`` with only what its wire needs (ACP: the session's channel; LSP: the prompt's request id and
progress token) and maps a refused claim to its own error (``BUSY`` is the shared wording).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_lsp.runtime import SessionHandle, SessionOpening

BUSY = "A prompt is already running in this session; cancel it first"


@dataclass(kw_only=True)
class LiveSession:
    """One open session of a connection. Its answer goes out from the opening's preview; what needs the session
    itself awaits the opening's ``handle()``."""

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

    def claim(self) -> bool:
        """Claim the session for a prompt whose request just arrived; False when a prompt already holds it (or
        the built session runs one). Call before the first ``await``; ``release`` when the prompt is answered."""
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

    async def refresh_models(self, handle: SessionHandle) -> bool:
        """Ask the endpoints for the picker's models; True when the list changed (the adapter tells the editor)."""
        models = await handle.model_choices()
        changed = models != self.models
        self.models = models
        return changed
