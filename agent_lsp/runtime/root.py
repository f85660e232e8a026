"""Runtime: builds each session once from small builders, each handed the slice of settings it needs."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING

from agent_lsp import events as ev
from agent_lsp.runtime.clients import ModelClients
from agent_lsp.runtime.commands import build_commands
from agent_lsp.runtime.extensions import active_extensions
from agent_lsp.runtime.external import ExternalTools, mcp_server_specs
from agent_lsp.runtime.handle import SessionHandle
from agent_lsp.runtime.hooks import build_hooks
from agent_lsp.runtime.memory import Memory
from agent_lsp.runtime.options import RuntimeOptions, SessionSetup
from agent_lsp.runtime.policy import build_policy, start_mode
from agent_lsp.runtime.recording import build_checkpointer, build_recording
from agent_lsp.runtime.session import build_session
from agent_lsp.runtime.temp import new_temp_dir, remove_temp_dir
from agent_lsp.runtime.tools import ToolSet, build_tools
from agent_lsp.runtime.trust import load_trusted_settings
from agent_lsp.runtime.workspace import build_workspace
from agent_lsp.workspace.filesystem import LocalFileSystem

if TYPE_CHECKING:
    from pathlib import Path

    from agent_lsp.config.settings import Settings
    from agent_lsp.extensions.manifest import Manifest
    from agent_lsp.model.base import ModelClient
    from agent_lsp.model.provider import ProviderChoice


class Runtime:
    """The composition root: every adapter and the headless command line create sessions only through here."""

    def __init__(self, options: RuntimeOptions | None = None) -> None:
        self.options = options or RuntimeOptions()
        self._clients = ModelClients(self.options)

    def model_client(self, env: Mapping[str, str] | None = None, choice: ProviderChoice | None = None) -> ModelClient:
        """The process's client for these credentials (the replay model when scripted); see ModelClients."""
        return self._clients.client(env, choice)

    def check_auth(self) -> str | None:
        """A message saying what credentials are missing, or None when a model can be built."""
        return self._clients.check_auth()

    async def create_session(self, setup: SessionSetup) -> SessionHandle:
        # Settings, memory and tool set-up touch the disk: keep them off the event loop.
        handle = await asyncio.to_thread(self._build, setup)
        handle.start()
        # Load the model client while the user types, once the session/new answer is out (the delay lets
        # the adapter write it first): see GeminiClient.warm. The replay model has nothing to warm.
        warm = getattr(handle.session.client, "warm", None)
        if callable(warm) and self.options.warm_model:
            asyncio.get_running_loop().call_later(0.05, warm)
        await handle.start_hooks("resume" if setup.history else "startup")
        return handle

    async def load_session(self, session_id: str, setup: SessionSetup) -> tuple[SessionHandle, list[ev.AgentEvent]]:
        """Reopen a recorded session: its history for the model, its events for the editor to redraw."""
        from agent_lsp.store.sessions import SessionStore

        loaded = await asyncio.to_thread(SessionStore(setup.cwd.resolve()).load, session_id)
        handle = await self.create_session(dataclasses.replace(setup, session_id=session_id, history=loaded.history))
        handle.session.title = loaded.info.title or None
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

    def _build(self, setup: SessionSetup) -> SessionHandle:
        temp_dir = new_temp_dir()
        try:
            return self._assemble(setup, temp_dir)
        except BaseException:
            remove_temp_dir(temp_dir)  # a session that never existed leaves no scratch folder behind
            raise

    def _assemble(self, setup: SessionSetup, temp_dir: Path) -> SessionHandle:
        """Each part once, in dependency order; problems along the way become the handle's first notices."""
        opts = self.options
        cwd = setup.cwd.resolve()
        notices: list[ev.Notice] = []
        base = load_trusted_settings(
            cwd,
            setup.extra_roots,
            env=opts.env,
            editor_trust=setup.editor_trust,
            overrides=setup.overrides,
            notices=notices,
        )
        s, trusted = base.settings, base.trusted
        extensions = active_extensions(cwd, opts.extensions, notices)
        workspace = build_workspace(cwd, setup.extra_roots, opts.include_directories, s.context, temp_dir)
        asked = setup.approval_mode or opts.approval_mode or s.general.default_approval_mode
        policy = build_policy(
            mode=start_mode(asked, s.security, notices),
            cwd=cwd,
            env=base.env,
            trusted=trusted,
            interactive=opts.interactive,
            tools=s.tools,
            mcp=s.mcp,
            policy_paths=opts.policy_paths,
            allowed_tools=opts.allowed_tools,
            allowed_mcp_server_names=opts.allowed_mcp_server_names,
            excluded_by_extensions=[t for m in extensions for t in m.exclude_tools],
            notices=notices,
        )
        router, model_name = self._clients.router(base.env, s.model, setup.model or opts.model)
        client = router.client()  # raises AuthError saying what to set, before anything is recorded
        tools = build_tools(
            workspace=workspace,
            fs=setup.fs or LocalFileSystem(),
            temp_dir=temp_dir,
            router=router,
            tools=s.tools,
            context=s.context,
            skill_settings=s.skills,
            replace=setup.replace_tools,
            trusted=trusted,
            extensions=extensions,
            notices=notices,
        )
        memory = Memory(
            workspace,
            s.context.file_names,
            trusted=trusted,
            extra_files=[f for m in extensions for f in m.context_files],
        )
        # The editor's choice for this session, else the adapter's or command line's default.
        checkpoints = setup.checkpointing if setup.checkpointing is not None else opts.checkpointing
        checkpointer = build_checkpointer(s.general.checkpointing, checkpoints, workspace.primary)
        # The id is chosen first, so hooks, the recording and the session all name the same one.
        session_id = setup.session_id or uuid.uuid4().hex
        recording = build_recording(
            session_id, record=setup.record, primary=workspace.primary, cwd=cwd, telemetry=s.telemetry
        )
        hooks = build_hooks(
            s.hooks,
            s.hooks_config,
            cwd=cwd,
            session_id=session_id,
            transcript=recording.recorder.path if recording.recorder is not None else None,
            extensions=extensions,
            notices=notices,
        )
        commands = build_commands(
            cwd=cwd,
            trusted=trusted,
            router=router,
            memory=memory,
            tools=tools,
            checkpointer=checkpointer,
            extensions=extensions,
            notices=notices,
        )
        external = self._external(setup, base.trusted, s, extensions, tools, notices)
        session = build_session(
            session_id=session_id,
            model_settings=s.model,
            max_attempts=s.general.max_attempts,
            truncate_threshold=s.tools.truncate_tool_output_threshold,
            permanent_approval=s.security.enable_permanent_tool_approval,
            client=client,
            router=router,
            model_name=model_name,
            confirmer=setup.confirmer,
            history=setup.history,
            workspace=workspace,
            policy=policy,
            tools=tools,
            memory=memory,
            checkpointer=checkpointer,
            hooks=hooks,
            recording=recording,
            commands=commands,
            before_model=external.wait_for_servers if external.specs else None,
        )
        return SessionHandle(
            session=session,
            workspace=workspace,
            settings=base.loaded,
            trusted=trusted,
            trust_reason=base.reason,
            notices=notices,
            registry=tools.registry,
            router=router,
            commands=commands,
            extensions=extensions,
            external=external,
            recorder=recording.recorder,
            store=recording.store,
            checkpointer=checkpointer,
            temp_dir=temp_dir,
            notice_sink=setup.notice_sink,
        )

    def _external(
        self,
        setup: SessionSetup,
        trusted: bool,
        s: Settings,
        extensions: list[Manifest],
        tools: ToolSet,
        notices: list[ev.Notice],
    ) -> ExternalTools:
        allowed = self.options.allowed_mcp_server_names
        specs = mcp_server_specs(
            s.mcp_servers,
            allowed=allowed if allowed is not None else s.mcp.allowed,
            excluded=s.mcp.excluded,
            trusted=trusted,
            extensions=extensions,
            from_editor=setup.client_mcp_servers,
            notices=notices,
        )
        found, call = s.tools.discovery_command, s.tools.call_command
        return ExternalTools(tools.registry, tools.ctx, specs, (found, call) if found and call else None)
