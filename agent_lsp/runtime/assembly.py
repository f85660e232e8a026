"""The second step of opening a session: every part its first step did not need, once, in dependency order."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lsp import events as ev
from agent_lsp.runtime.code_intel import build_code_intel, build_edit_checks
from agent_lsp.runtime.commands import build_commands
from agent_lsp.runtime.extensions import active_extensions
from agent_lsp.runtime.external import ExternalTools, mcp_server_specs
from agent_lsp.runtime.handle import SessionHandle
from agent_lsp.runtime.hooks import build_hooks
from agent_lsp.runtime.memory import Memory
from agent_lsp.runtime.policy import build_policy, child_env_of
from agent_lsp.runtime.recording import build_checkpointer, build_recording
from agent_lsp.runtime.sampling import SessionSampler
from agent_lsp.runtime.session import build_session
from agent_lsp.runtime.tools import SessionTools, build_tools
from agent_lsp.runtime.workspace import build_workspace
from agent_lsp.store.checkpoints.roots import RootsCheckpointer
from agent_lsp.workspace.filesystem import LocalFileSystem

if TYPE_CHECKING:
    from agent_lsp.config.settings import Settings
    from agent_lsp.extensions.manifest import Manifest
    from agent_lsp.mcp.pool import McpPool
    from agent_lsp.mcp.prompt_commands import McpPromptCommands
    from agent_lsp.mcp.resource_mentions import McpResourceMentions
    from agent_lsp.runtime.opening import FirstStep
    from agent_lsp.runtime.options import RuntimeOptions, SessionSetup


def assemble(
    first: FirstStep,
    opts: RuntimeOptions,
    temp_dir: Path,
    loop: asyncio.AbstractEventLoop | None = None,
    pool: McpPool | None = None,  # the runtime's MCP servers; None: this session's own
) -> SessionHandle:
    """The session and everything it owns; problems along the way become the handle's first notices."""
    setup, cwd, notices = first.setup, first.cwd, first.notices
    s, trusted = first.base.settings, first.base.trusted
    extensions = active_extensions(cwd, opts.extensions, notices)
    workspace = build_workspace(cwd, setup.extra_roots, opts.include_directories, s.context, temp_dir)
    child_env = child_env_of(s)
    policy = build_policy(
        mode=first.mode,
        cwd=cwd,
        env=first.base.env,
        trusted=trusted,
        interactive=opts.interactive,
        tools=s.tools,
        mcp=s.mcp,
        policy_paths=opts.policy_paths,
        allowed_tools=opts.allowed_tools,
        allowed_mcp_server_names=opts.allowed_mcp_server_names,
        excluded_by_extensions=[t for m in extensions for t in m.exclude_tools],
        notices=notices,
        security=s.security,
        secure_mode=s.admin.secure_mode_enabled,
    )
    router = first.router
    fs = setup.fs or LocalFileSystem()
    code_intel = build_code_intel(
        setup=setup,
        settings=s,
        trusted=trusted,
        env=first.base.env,
        workspace=workspace,
        fs=fs,
        loop=loop,
        notices=notices,
        child_env=child_env,
    )
    tools = build_tools(
        workspace=workspace,
        fs=fs,
        code_intel=code_intel,
        edit_checks=build_edit_checks(code_intel, s, workspace),
        temp_dir=temp_dir,
        router=router,
        tools=s.tools,
        context=s.context,
        skill_settings=s.skills,
        replace=setup.replace_tools,
        trusted=trusted,
        extensions=extensions,
        notices=notices,
        interactive=opts.interactive,
        agent_settings=s.agents,
        agents_enabled=s.experimental.enable_agents,
        child_env=child_env,
    )
    memory = Memory(
        workspace,
        s.context.file_names,
        trusted=trusted,
        extra_files=[f for m in extensions for f in m.context_files],
    )
    # The editor's choice for this session, else the adapter's or command line's default.
    checkpoints = setup.checkpointing if setup.checkpointing is not None else opts.checkpointing
    # The id was chosen first, so hooks, the recording, the checkpoints and the session all name the same one.
    session_id = first.preview.session_id
    checkpointer = build_checkpointer(s.general.checkpointing, checkpoints, workspace.primary, session_id)
    # Every root a tool may write in is snapshotted, rewound and restored, not only the primary (its own repository
    # each); one of these serves the scheduler, rewind and /restore.
    roots = RootsCheckpointer(checkpointer, lambda: workspace.roots) if checkpointer is not None else None
    recording = build_recording(
        session_id, record=setup.record, primary=workspace.primary, cwd=cwd, telemetry=s.telemetry
    )
    external = _external(setup, opts, trusted, s, extensions, tools, notices, pool)
    hooks = build_hooks(
        s.hooks,
        s.hooks_config,
        cwd=cwd,
        session_id=session_id,
        transcript=recording.recorder.path if recording.recorder is not None else None,
        extensions=extensions,
        notices=notices,
        child_env=child_env,
    )
    commands = build_commands(
        prompts=_mcp_prompts(external) if external.specs else None,
        mcp=external.describe_mcp if external.specs else None,
        cwd=cwd,
        trusted=trusted,
        router=router,
        memory=memory,
        tools=tools,
        checkpointer=roots,
        extensions=extensions,
        notices=notices,
        headless=not opts.interactive,
    )
    session = build_session(
        session_id=session_id,
        model_settings=s.model,
        max_attempts=s.general.max_attempts,
        retry=opts.retry,
        truncate_threshold=s.tools.truncate_tool_output_threshold,
        permanent_approval=s.security.enable_permanent_tool_approval,
        client=first.client,
        router=router,
        model_name=first.preview.model,
        confirmer=setup.confirmer,
        history=setup.history,
        title=setup.title,
        past_events=setup.events,
        workspace=workspace,
        policy=policy,
        tools=tools,
        memory=memory,
        checkpointer=roots,
        hooks=hooks,
        recording=recording,
        commands=commands,
        before_model=external.wait_for_servers if external.specs else None,
        resources=_mcp_resources(external) if external.specs else None,
        client_instructions=setup.client_instructions,
    )
    return SessionHandle(
        session=session,
        workspace=workspace,
        settings=first.base.loaded,
        trusted=trusted,
        trust_reason=first.base.reason,
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
        processes=tools.ctx.processes,
        commands_changed=setup.commands_changed,
        open_url=setup.open_url,
        elicitor=setup.elicitor,
        sampler=SessionSampler(session, setup.confirmer, interactive=opts.interactive) if external.specs else None,
    )


def _mcp_prompts(external: ExternalTools) -> McpPromptCommands:
    from agent_lsp.mcp.prompt_commands import McpPromptCommands

    return McpPromptCommands(lambda: external.mcp)


def _mcp_resources(external: ExternalTools) -> McpResourceMentions:
    from agent_lsp.mcp.resource_mentions import McpResourceMentions

    return McpResourceMentions(lambda: external.mcp, [spec.name for spec in external.specs])


def _external(
    setup: SessionSetup,
    opts: RuntimeOptions,
    trusted: bool,
    s: Settings,
    extensions: list[Manifest],
    tools: SessionTools,
    notices: list[ev.Notice],
    pool: McpPool | None,
) -> ExternalTools:
    allowed = opts.allowed_mcp_server_names
    specs = mcp_server_specs(
        s.mcp_servers,
        allowed=allowed if allowed is not None else s.mcp.allowed,
        excluded=s.mcp.excluded,
        trusted=trusted,
        extensions=extensions,
        from_editor=setup.client_mcp_servers,
        notices=notices,
        inherit=tools.ctx.child_env,
    )
    found, call = s.tools.discovery_command, s.tools.call_command
    return ExternalTools(tools.registry, tools.ctx, specs, (found, call) if found and call else None, pool)
