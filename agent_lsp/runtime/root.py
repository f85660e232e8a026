"""Runtime: opens each session in two steps from small builders, each handed the slice of settings it needs."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agent_lsp.runtime.clients import ModelClients
from agent_lsp.runtime.opening import FirstStep, SessionOpening, SessionPreview
from agent_lsp.runtime.options import RuntimeOptions, SessionSetup
from agent_lsp.runtime.policy import start_mode
from agent_lsp.runtime.trust import load_trusted_settings
from agent_lsp.supervisor import TaskSupervisor

if TYPE_CHECKING:
    from pathlib import Path

    from agent_lsp import events as ev
    from agent_lsp.mcp.pool import McpPool
    from agent_lsp.model.base import ModelClient
    from agent_lsp.model.provider import ProviderChoice
    from agent_lsp.model.router import ModelRouter
    from agent_lsp.runtime.handle import SessionHandle
    from agent_lsp.runtime.trust import TrustedSettings
    from agent_lsp.store.sessions import SessionInfo


class Runtime:
    """The composition root: every adapter and the headless command line create sessions only through here."""

    def __init__(
        self,
        options: RuntimeOptions | None = None,
        *,
        tasks: TaskSupervisor | None = None,
        mcp_pool: McpPool | None = None,  # an earlier runtime's of this connection (re-authenticated): still shared
    ) -> None:
        self.options = options or RuntimeOptions()
        self._clients = ModelClients(self.options)
        # The connection's background tasks (the adapter's, passed in), else this runtime's own (headless).
        self.tasks = tasks if tasks is not None else TaskSupervisor("runtime")
        self._mcp_pool = mcp_pool  # else made with the first session (its import is the session's cost)

    @property
    def mcp_pool(self) -> McpPool:
        """The MCP servers this runtime's sessions lease (one per spec and roots); see mcp/pool.py."""
        if self._mcp_pool is None:
            from agent_lsp.mcp.pool import McpPool

            self._mcp_pool = McpPool()
        return self._mcp_pool

    async def aclose(self) -> None:
        """Stop the MCP servers still leased (each session's close releases its own; this is what is left)."""
        if self._mcp_pool is not None:
            await self._mcp_pool.aclose()

    def model_client(self, env: Mapping[str, str] | None = None, choice: ProviderChoice | None = None) -> ModelClient:
        """The process's client for these credentials (the replay model when scripted); see ModelClients."""
        return self._clients.client(env, choice)

    @staticmethod
    def new_session_id() -> str:
        """A fresh session id, for an adapter that must name the session before it exists (its notice sink and
        editor tools are made first)."""
        from agent_lsp.store.sessions.naming import new_session_id

        return new_session_id()

    def check_auth(self, cwd: Path, *, editor_trust: bool | None = None) -> str | None:
        """A message saying what credentials sessions in ``cwd`` would lack, or None when a model can be built:
        decided as a session opening there decides (its trusted ``.env`` and settings count)."""
        from agent_lsp.errors import AuthError

        try:
            self._settings_and_model(
                cwd.resolve(), (), editor_trust=editor_trust, overrides=None, model=None, notices=[]
            )
        except AuthError as exc:
            return str(exc)
        return None

    async def open_session(self, setup: SessionSetup) -> SessionOpening:
        """Decide what the session's answer says (settings, trust, mode, model; raises AuthError saying what to
        set), then build the rest in the background: an editor can show the session while its tools, memory and
        commands load, and its first prompt waits for them (``SessionOpening.handle``)."""
        # Settings and trust touch the disk, and their first load imports pydantic: keep it off the event loop.
        first = await asyncio.to_thread(self._first_step, setup)
        built = self.tasks.spawn(self._second_step(first), name=f"open-session:{first.preview.session_id}")
        return SessionOpening(first.preview, built)

    async def create_session(self, setup: SessionSetup) -> SessionHandle:
        """Open a session and wait until it is whole."""
        return await (await self.open_session(setup)).handle()

    async def load_session(self, session_id: str, setup: SessionSetup) -> tuple[SessionHandle, list[ev.AgentEvent]]:
        """Reopen a recorded session: its history for the model, its events for the editor to redraw."""
        from agent_lsp import events as ev
        from agent_lsp.store.sessions import SessionStore

        loaded = await asyncio.to_thread(SessionStore(setup.cwd.resolve()).load, session_id)
        loaded_setup = dataclasses.replace(
            setup,
            session_id=session_id,
            history=loaded.history,
            title=loaded.info.title or None,
            events=loaded.events,
        )
        handle = await self.create_session(loaded_setup)
        if loaded.skipped:
            # Said while the session is being opened: kept with the start-up notices (see SessionHandle.notices).
            handle.notices.append(
                ev.Notice(
                    "warning",
                    f"{loaded.skipped} unreadable line(s) of this session's recording were left out "
                    "(a write interrupted by a crash leaves one).",
                )
            )
        return handle, loaded.events

    @staticmethod
    async def list_sessions(cwd: Path, cursor: str | None, limit: int) -> tuple[list[SessionInfo], str | None]:
        """A page of the sessions recorded for ``cwd``, most recent first, and the next page's cursor. A session
        nobody wrote a prompt in (an editor opens one at start) is not listed: there is nothing in it to resume.
        Raises ValueError for a cursor this agent did not give out."""
        from agent_lsp.store.sessions import SessionStore

        def page() -> tuple[list[SessionInfo], str | None]:
            return SessionStore(cwd.resolve()).list(cursor, limit, prompted_only=True)

        return await asyncio.to_thread(page)

    @staticmethod
    async def delete_session(session_id: str, cwds: Sequence[Path]) -> bool:
        """Delete a recorded session from the first of ``cwds`` that has it; False when none does."""
        from agent_lsp.store.sessions import SessionStore

        def delete() -> bool:
            return any(SessionStore(cwd.resolve()).delete(session_id) for cwd in cwds)

        return await asyncio.to_thread(delete)

    def _first_step(self, setup: SessionSetup) -> FirstStep:
        opts = self.options
        cwd = setup.cwd.resolve()
        notices: list[ev.Notice] = []
        base, router, model_name, client = self._settings_and_model(
            cwd,
            setup.extra_roots,
            editor_trust=setup.editor_trust,
            overrides=setup.overrides,
            model=setup.model,
            notices=notices,
        )
        s = base.settings
        asked = setup.approval_mode or opts.approval_mode or s.general.default_approval_mode
        mode = start_mode(asked, s.security, notices, trusted=base.trusted, secure_mode=s.admin.secure_mode_enabled)
        # The id is chosen first, so hooks, the recording and the session all name the same one.
        preview = SessionPreview(
            session_id=setup.session_id or self.new_session_id(),
            mode=mode,
            model=model_name,
            provider=router.provider,
            lists_models="openai" in router.providers,
            context_window=router.token_limit(model_name),
            provider_summary=router.describe(),
        )
        return FirstStep(setup, cwd, base, mode, router, client, preview, notices)

    def _settings_and_model(
        self,
        cwd: Path,
        extra_roots: Sequence[Path],
        *,
        editor_trust: bool | None,
        overrides: Mapping[str, Any] | None,
        model: str | None,
        notices: list[ev.Notice],
    ) -> tuple[TrustedSettings, ModelRouter, str, ModelClient]:
        """The folder's trust, ``.env`` and settings, then its model router, starting model and client; raises
        AuthError saying what to set when no credentials serve the folder, before anything is recorded."""
        base = load_trusted_settings(
            cwd, extra_roots, env=self.options.env, editor_trust=editor_trust, overrides=overrides, notices=notices
        )
        router, model_name = self._clients.router(base.env, base.settings.model, model or self.options.model)
        return base, router, model_name, router.client()

    async def _second_step(self, first: FirstStep) -> SessionHandle:
        pool = self.mcp_pool  # on the loop: sessions built side by side in threads share the one pool
        handle = await asyncio.to_thread(self._build, first, asyncio.get_running_loop(), pool)
        handle.tasks = self.tasks
        handle.start()
        # Load the model client while the user types: see GeminiClient.warm. The replay model has nothing to
        # warm. Not before the build: both want the one interpreter lock, and a prompt waits for the build.
        warm = getattr(handle.session.client, "warm", None)
        if callable(warm) and self.options.warm_model:
            asyncio.get_running_loop().call_later(0.05, warm)
        await handle.start_hooks("resume" if first.setup.history else "startup")
        return handle

    def _build(self, first: FirstStep, loop: asyncio.AbstractEventLoop, pool: McpPool) -> SessionHandle:
        # Imported here, in the background: tools, memory and the core are what the first step leaves out.
        from agent_lsp.runtime.assembly import assemble
        from agent_lsp.runtime.temp import new_temp_dir, remove_temp_dir

        temp_dir = new_temp_dir()
        try:
            return assemble(first, self.options, temp_dir, loop, pool)
        except BaseException:
            remove_temp_dir(temp_dir)  # a session that never existed leaves no scratch folder behind
            raise
