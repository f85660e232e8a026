"""Builder: the Session itself, from parts already built (model, tools, policy, memory, hooks, commands, sinks)."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from agent_lsp import events as ev
from agent_lsp.core.call_results import AnswerOptions
from agent_lsp.core.commands import Commands
from agent_lsp.core.history import History
from agent_lsp.core.ports import Confirmer
from agent_lsp.core.ports import ToolSet as CoreToolSet
from agent_lsp.core.retry import RetryPolicy
from agent_lsp.core.session import Session
from agent_lsp.core.session_state import SessionDeps, SessionOptions, SessionState
from agent_lsp.model.base import Content, ModelClient
from agent_lsp.runtime.agents import OriginConfirmer, SchedulerFor, register_subagents
from agent_lsp.runtime.memory import Memory
from agent_lsp.runtime.policy import save_allowed_rules
from agent_lsp.runtime.recording import Recording
from agent_lsp.runtime.tools import SessionTools
from agent_lsp.tools.policy import Policy
from agent_lsp.workspace.roots import Workspace

if TYPE_CHECKING:
    from agent_lsp.config.settings import ModelSettings
    from agent_lsp.core.mentions import ResourceReader
    from agent_lsp.core.rewind import FileRewinder
    from agent_lsp.core.scheduler import Scheduler
    from agent_lsp.hooks.system import HookSystem
    from agent_lsp.model.router import ModelRouter
    from agent_lsp.store.checkpoints.roots import RootsCheckpointer


def build_session(
    *,
    session_id: str,
    model_settings: ModelSettings,
    max_attempts: int,
    retry: RetryPolicy | None,
    truncate_threshold: int,
    permanent_approval: bool,
    client: ModelClient,
    router: ModelRouter,
    model_name: str,
    confirmer: Confirmer,
    history: Sequence[Content],
    title: str | None,
    past_events: Sequence[ev.AgentEvent],
    workspace: Workspace,
    policy: Policy,
    tools: SessionTools,
    memory: Memory,
    checkpointer: RootsCheckpointer | None,
    hooks: HookSystem | None,
    recording: Recording,
    commands: Commands,
    before_model: Callable[[], Awaitable[None]] | None,
    resources: ResourceReader | None = None,
    client_instructions: str = "",
) -> Session:
    from agent_lsp.core.mentions import MentionExpander
    from agent_lsp.tools.read_many_files import read_paths_for_prompt

    async def read_mentions(paths: list[str]) -> tuple[list[Any], list[str]]:
        return await read_paths_for_prompt(tools.ctx, paths)

    roots = checkpointer
    scheduler_for = _scheduler_for(
        policy,
        confirmer,
        roots,
        hooks,
        answers=AnswerOptions(tools.ctx.temp_dir, truncate_threshold, memory.jit, tools.edit_checks),
        permanent_approval=permanent_approval,
    )

    def factory(
        emit: Callable[[ev.AgentEvent], None],
        history: Callable[[], Sequence[Content]],
        delivered: Callable[[], Awaitable[None]],
    ) -> Scheduler:
        return scheduler_for(tools.registry, emit, history, delivered)

    instruction = _instruction(workspace, memory, policy, tools, client_instructions)
    recorder = recording.recorder
    deps = SessionDeps(
        registry=tools.registry,
        policy=policy,
        scheduler_factory=factory,
        system_prompt=instruction,
        options=_options(model_settings, retry, max_attempts, router),
        expand_prompt=MentionExpander(read_mentions, resources),
        commands=commands,
        on_history=recorder.record_history if recorder is not None else None,
        roots=tuple(workspace.roots),
        hooks=hooks,
        before_model=before_model,
        rewinder=_rewinder(roots),
        on_rewind=recorder.record_rewind if recorder is not None else None,
        meter=router.ledger.totals,  # every client the router hands out is metered into this ledger
    )
    # Pro → flash fallback is a Gemini notion; another provider's 429s are just retried.
    state = SessionState(
        client=client,
        model=model_name,
        allow_fallback=router.provider == "gemini",
        history=History(history),
        title=title,
    )
    session = Session(deps, state, session_id=session_id, sinks=recording.sinks, past_events=past_events)
    register_subagents(tools, session, scheduler_for, instruction)
    return session


def _options(
    model_settings: ModelSettings, retry: RetryPolicy | None, max_attempts: int, router: ModelRouter
) -> SessionOptions:
    """The settings slice the session runs by."""
    return SessionOptions(
        max_session_turns=model_settings.max_session_turns,
        compression_threshold=model_settings.compression_threshold
        or model_settings.chat_compression.context_percentage_threshold,
        loop_detection=not model_settings.disable_loop_detection,
        retry=dataclasses.replace(retry or RetryPolicy(), max_attempts=max_attempts),
        token_limit=router.token_limit,
    )


def _rewinder(roots: RootsCheckpointer | None) -> FileRewinder | None:
    if roots is None:
        return None
    from agent_lsp.store.checkpoints.roots import RootsRewinder

    return RootsRewinder(roots)


def _scheduler_for(
    policy: Policy,
    confirmer: Confirmer,
    checkpointer: RootsCheckpointer | None,
    hooks: HookSystem | None,
    *,
    answers: AnswerOptions,
    permanent_approval: bool,
) -> SchedulerFor:
    """Each turn's scheduler over a registry (the session's, or a subagent's subset of it), with its own Approval
    (the turn's stream is where its questions go)."""
    from agent_lsp.core.approval import Approval
    from agent_lsp.core.scheduler import Scheduler

    def scheduler_for(
        registry: CoreToolSet,
        emit: Callable[[ev.AgentEvent], None],
        history: Callable[[], Sequence[Content]],
        delivered: Callable[[], Awaitable[None]],
        origin: ev.Origin | None = None,
    ) -> Scheduler:
        approval = Approval(
            policy,
            confirmer if origin is None else OriginConfirmer(confirmer, origin),
            emit,
            delivered=delivered,
            hooks=hooks,
            on_save_rule=save_allowed_rules,
            permanent_approval=permanent_approval,  # security.enablePermanentToolApproval
            always_allow=not policy.disable_always_allow,  # security.disableAlwaysAllow
        )
        return Scheduler(
            registry,
            policy,
            approval,
            emit,
            answers=answers,
            checkpointer=checkpointer,
            history=history,
            hooks=hooks,
        )

    return scheduler_for


def _instruction(
    workspace: Workspace,
    memory: Memory,
    policy: Policy,
    tools: SessionTools,
    client: str = "",
) -> Callable[[], str]:
    """The system prompt, read on every request, so /memory reload, a mode change and /skills take effect on the
    next one. The folder listing is computed once: walking the disk each time would be the slowest part of a turn.
    ``client``: the editor's own instructions (ACP's systemPrompt in append mode), after ours."""
    from agent_lsp.config.paths import plans_dir
    from agent_lsp.core.prompts import code_intel_section, folder_tree, system_prompt

    tree = folder_tree(workspace.primary)
    skills = tools.skills
    agents = tools.agents
    plans = str(plans_dir(workspace.primary).resolve())
    intel = tools.ctx.code_intel
    diagnostics = tools.edit_checks is not None
    code_intel = code_intel_section(rename=intel.can_rename(), diagnostics=diagnostics) if intel else ""

    extra = f"\n\n# Instructions from the editor\n\n{client.strip()}" if client.strip() else ""

    def instruction() -> str:
        return _ours() + extra

    def _ours() -> str:
        return system_prompt(
            workspace.roots,
            memory=memory.text,
            plan_mode=policy.mode == "plan",
            tree=tree,
            skills=[(k.name, k.description, str(k.location)) for k in skills.enabled()] if skills else (),
            agents=[(a.name, a.description) for a in agents if policy.mode != "plan" or a.read_only],
            plans=plans,
            code_intel=code_intel,
        )

    return instruction
