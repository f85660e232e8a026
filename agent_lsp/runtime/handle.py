"""SessionHandle: a session and everything it owns, built once by the runtime; ``aclose`` releases it all."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_lsp import events as ev
from agent_lsp.core.commands import COMMANDS, Commands, CommandSpec
from agent_lsp.core.session import Session
from agent_lsp.runtime.external import ExternalTools
from agent_lsp.runtime.temp import remove_temp_dir
from agent_lsp.supervisor import TaskSupervisor
from agent_lsp.workspace.roots import Workspace

if TYPE_CHECKING:
    from agent_lsp.config.loader import LoadedSettings
    from agent_lsp.extensions.manifest import Manifest
    from agent_lsp.mcp.elicitation import Elicitor
    from agent_lsp.mcp.manager import McpManager
    from agent_lsp.model.base import Part
    from agent_lsp.model.inputs import ModelInputs
    from agent_lsp.model.router import ModelRouter
    from agent_lsp.store.checkpoints import ShadowGitCheckpointer
    from agent_lsp.store.sessions import SessionRecorder, SessionStore
    from agent_lsp.tools.background import BackgroundProcesses
    from agent_lsp.tools.registry import ToolRegistry

log = logging.getLogger(__name__)


@dataclass
class SessionHandle:
    """A session and the things it owns. Every field is given at construction (adapters contribute through
    ``SessionSetup``); what changes later is the session's own state (model, mode, history)."""

    session: Session
    workspace: Workspace
    settings: LoadedSettings
    trusted: bool
    trust_reason: str
    # Said while the session was created or loaded, in order, for the adapter to show once the editor knows the
    # session; ``notice_sink`` gets what is said after (``notify``).
    notices: list[ev.Notice]
    registry: ToolRegistry  # the session's tools, concrete: MCP and discovery add to it (the core sees a ToolSet)
    router: ModelRouter | None = None
    commands: Commands | None = None
    extensions: Sequence[Manifest] = ()  # the active extensions' manifests
    external: ExternalTools | None = None  # MCP servers and discovered tools, started by the runtime
    recorder: SessionRecorder | None = None
    store: SessionStore | None = None
    checkpointer: ShadowGitCheckpointer | None = None
    temp_dir: Path | None = None  # removed by aclose
    notice_sink: Callable[[ev.Notice], None] | None = None
    commands_changed: Callable[[], None] | None = None  # the adapter's: the command list changed by itself
    open_url: Callable[[str], Awaitable[None]] | None = None  # the adapter's: open an MCP sign-in page
    sampler: Callable[[str, Any], Awaitable[Any]] | None = None  # MCP sampling through the session's model
    elicitor: Elicitor | None = None  # the adapter's: MCP servers' forms shown to the user
    tasks: TaskSupervisor = field(default_factory=TaskSupervisor)  # the connection's (set by the runtime)
    _own: set[asyncio.Task[Any]] = field(default_factory=set)  # what ``spawn`` started for this session
    processes: BackgroundProcesses | None = None  # the model's is_background commands, stopped on close

    @property
    def mcp(self) -> McpManager | None:
        return self.external.mcp if self.external is not None else None

    # --- models ---------------------------------------------------------------------------------------

    def set_model(self, value: str) -> None:
        """Switch model, or provider with ``provider:name`` (from the picker); the conversation carries on.
        Raises ValueError naming what is wrong."""
        if self.router is None:
            self.session.switch_model(value)
            return
        client, model = self.router.switch(value)
        self.session.switch_model(model, client, allow_fallback=self.router.provider == "gemini")

    async def model_choices(self) -> list[tuple[str, str]]:
        """(value, name) pairs for the editors' model pickers: what the endpoints offer, the current model first."""
        if self.router is None:
            return [(self.session.model, self.session.model)]
        return [(c.value, c.name) for c in await self.router.choices(self.session.model)]

    async def model_inputs(self) -> ModelInputs:
        """What the current model takes besides text (images, audio, PDF): settings ``model.models.<name>.inputs``,
        else what its provider says, else the documented table (model/inputs.py)."""
        from agent_lsp.model.inputs import resolve, table_inputs

        model, provider = self.session.model, self.provider
        own = self.settings.settings.model.models.get(model)
        described: Any = getattr(self.router.client(), "describe_inputs", None) if self.router is not None else None
        said = await described(model) if callable(described) else None
        return resolve(own.inputs if own is not None else None, said, table_inputs(provider, model))

    async def refused_inputs(self, parts: Sequence[Part]) -> str | None:
        """Why a prompt carrying ``parts`` cannot go to the current model (an image, audio or a PDF it does not
        take), or None; asked before anything is sent, so nothing is dropped after."""
        if not any(p.inline_data is not None for p in parts):
            return None
        return (await self.model_inputs()).refused(parts, self.provider, self.session.model)

    @property
    def provider(self) -> str:
        return self.router.provider if self.router is not None else "gemini"

    @property
    def lists_models(self) -> bool:
        """Whether the picker's models come from an endpoint (so they arrive later, over the network)."""
        return self.router is not None and "openai" in self.router.providers

    def provider_summary(self) -> str:
        return self.router.describe() if self.router is not None else "unknown"

    # --- commands and notices -------------------------------------------------------------------------

    def command_specs(self) -> list[CommandSpec]:
        """The slash commands to offer in the editor's menu: built-in and custom."""
        return self.commands.specs() if self.commands is not None else list(COMMANDS)

    def refresh_commands(self) -> bool:
        """Reread custom command files if they changed (a cheap stat of each); problems become notices.
        True when the set changed, so the adapter tells the editor."""
        if self.commands is None:
            return False
        changed, problems = self.commands.refresh()
        for problem in problems:
            self.notify(ev.Notice("error", problem))
        return changed

    def roots_changed(self) -> None:
        """The workspace's folders changed (the adapter changed them): MCP servers hear of it."""
        mcp = self.mcp
        if mcp is not None:
            mcp.roots_changed()

    def take_notices(self) -> list[ev.Notice]:
        """The notices said while the session was made (and not yet shown), handed over once: the adapter shows
        them when the editor knows the session."""
        notices, self.notices[:] = list(self.notices), []
        return notices

    def spawn(self, coro: Coroutine[Any, Any, None], *, name: str | None = None) -> asyncio.Task[None]:
        """Background work of this session (a model list refresh, MCP discovery): tracked by the connection's
        supervisor, and cancelled when the session closes."""
        task = self.tasks.spawn(coro, name=name)
        self._own.add(task)
        task.add_done_callback(self._own.discard)
        return task

    def notify(self, notice: ev.Notice) -> None:
        """Deliver a notice now (during a prompt, or through the adapter's sink), else keep it for later."""
        if self.session.running:
            self.session.emit(notice)
        elif self.notice_sink is not None:
            self.notice_sink(notice)
        else:
            self.notices.append(notice)

    # --- lifecycle ------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start what runs in the background (MCP servers, tool discovery). Needs the running event loop."""
        if self.external is not None:
            self.external.start(
                self.notify, self.spawn, self.commands_changed, self.sampler, self.open_url, self.elicitor
            )
        if self.processes is not None:
            # A server the model started in the background stopping on its own is worth knowing about.
            self.processes.watch(
                lambda p: self.notify(ev.Notice("info", f"Background process {p.pid} (`{p.command}`) {p.ending()}."))
            )

    async def start_hooks(self, source: str) -> None:
        """SessionStart hooks: their messages are shown, their context goes with the first prompt."""
        hooks = self.session.hooks
        if hooks is None or not hooks.has("SessionStart", source):
            return
        outcome = await hooks.fire("SessionStart", {"source": source}, source)
        # Still part of creating the session: kept with the other start-up notices, in order, for the adapter
        # to show once the editor knows the session (not through the sink, which may run ahead of that).
        self.notices.extend(ev.Notice(level, message) for level, message in outcome.notices)
        self.session.add_start_context(outcome.additional_context)

    async def aclose(self) -> None:
        hooks = self.session.hooks
        if hooks is not None and hooks.has("SessionEnd", "exit"):
            # Best effort, bounded by each hook's timeout; nothing it says can keep the session open.
            try:
                await hooks.fire("SessionEnd", {"reason": "exit"}, "exit")
            except Exception:
                log.exception("SessionEnd hooks failed")
        self.session.cancel()
        for task in list(self._own):
            task.cancel()
        if self.processes is not None:
            await self.processes.aclose()
        if self.external is not None:
            await self.external.aclose()
        if self.recorder is not None:
            self.recorder.close()
        if self.temp_dir is not None:
            await asyncio.to_thread(remove_temp_dir, self.temp_dir)
