"""A session opened in two steps: what its answer says (settings, trust, mode, model and credentials decided), then
everything else (workspace, policy, tools, memory, commands, hooks, recording) built behind that answer."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lsp.vocabulary import ApprovalMode

if TYPE_CHECKING:
    from agent_lsp import events as ev
    from agent_lsp.model.base import ModelClient
    from agent_lsp.model.router import ModelRouter
    from agent_lsp.runtime.handle import SessionHandle
    from agent_lsp.runtime.options import SessionSetup
    from agent_lsp.runtime.trust import TrustedSettings


@dataclass(frozen=True)
class SessionPreview:
    """What an editor is told when a session opens, all known before its tools, memory and commands exist."""

    session_id: str
    mode: ApprovalMode
    model: str
    provider: str  # "gemini", "openai" or "replay"
    lists_models: bool  # the model picker fills in from an endpoint, after the answer
    context_window: int  # tokens the starting model can read
    provider_summary: str  # which provider answers and why, without secrets (for the editors)

    @classmethod
    def of(cls, handle: SessionHandle) -> SessionPreview:
        """The same facts, read from a session that is already built (a loaded one)."""
        session = handle.session
        return cls(
            session.id,
            session.policy.mode,
            session.model,
            handle.provider,
            handle.lists_models,
            session.context_window,
            handle.provider_summary(),
        )


@dataclass(frozen=True)
class FirstStep:
    """The first step's decisions, handed to the second: nothing here is decided twice."""

    setup: SessionSetup
    cwd: Path  # resolved
    base: TrustedSettings
    mode: ApprovalMode
    router: ModelRouter
    client: ModelClient
    preview: SessionPreview
    notices: list[ev.Notice]  # said so far; the second step adds to the same list


class SessionOpening:
    """A session being opened: its preview at once, its handle once the second step has built it. Waiting for
    the handle never cancels the build (an editor's cancelled request must not leave half a session behind)."""

    def __init__(self, preview: SessionPreview, built: asyncio.Future[SessionHandle]) -> None:
        self.preview = preview
        self._built = built

    @classmethod
    def done(cls, handle: SessionHandle) -> SessionOpening:
        """An opening that has already finished (a loaded or resumed session)."""
        built: asyncio.Future[SessionHandle] = asyncio.get_running_loop().create_future()
        built.set_result(handle)
        return cls(SessionPreview.of(handle), built)

    async def handle(self) -> SessionHandle:
        """The built session; raises what building it raised."""
        return await asyncio.shield(self._built)

    @property
    def ready(self) -> SessionHandle | None:
        """The handle if the session is built, else None (also when building it failed)."""
        built = self._built
        if built.done() and not built.cancelled() and built.exception() is None:
            return built.result()
        return None
