"""The composition root: settings + trust + model + filesystem + confirmer → a ready Session.

Both adapters and the headless CLI build sessions only through here, so every part is handed the
slice of configuration it needs and nothing else.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_lsp import events as ev
from agent_lsp.core.commands import COMMANDS, Commands, CommandSpec
from agent_lsp.core.ports import Confirmer
from agent_lsp.core.session import Session, SessionOptions
from agent_lsp.model.base import Content, ModelClient
from agent_lsp.tools.policy import ApprovalMode, Policy
from agent_lsp.workspace.filesystem import FileSystem, LocalFileSystem
from agent_lsp.workspace.roots import Workspace

if TYPE_CHECKING:
    from agent_lsp.config.loader import LoadedSettings
    from agent_lsp.config.settings import ModelSettings
    from agent_lsp.mcp.manager import McpManager
    from agent_lsp.model.provider import ProviderChoice
    from agent_lsp.model.router import ModelRouter
    from agent_lsp.store.checkpoints import ShadowGitCheckpointer
    from agent_lsp.store.sessions import SessionRecorder, SessionStore
    from agent_lsp.tools.registry import ToolRegistry

log = logging.getLogger(__name__)

_TEMP_DIRS: set[Path] = set()  # sessions' scratch folders (full outputs of truncated tools) not yet removed


def _new_temp_dir() -> Path:
    path = Path(tempfile.mkdtemp(prefix="agent-lsp-"))
    _TEMP_DIRS.add(path)
    return path


def remove_temp_dir(path: Path) -> None:
    _TEMP_DIRS.discard(path)
    shutil.rmtree(path, ignore_errors=True)


@atexit.register
def _remove_temp_dirs() -> None:
    """Whatever sessions were not closed (the editor went away) still leave nothing behind."""
    for path in list(_TEMP_DIRS):
        remove_temp_dir(path)


REPLAY_DELAY_ENV = "AGENT_LSP_REPLAY_DELAY"  # seconds between replayed chunks (demos and UI tests), both adapters


def replay_delay(env: Mapping[str, str]) -> float:
    """The replay pacing the environment asks for (0 when unset or not a number)."""
    try:
        return max(0.0, float(env.get(REPLAY_DELAY_ENV, "") or 0.0))
    except ValueError:
        return 0.0


@dataclass
class RuntimeOptions:
    """What the command line (or the adapter) decided before any session exists."""

    fake_responses: Path | None = None
    model: str | None = None
    approval_mode: ApprovalMode | None = None
    checkpointing: bool | None = None  # None: settings decide (adapters pass True as their default)
    chunk_delay: float = 0.0  # replay pacing, for demos
    # Gemini CLI's -e/--extensions: only these extensions (["none"]: none); None: the enablement rules decide.
    extensions: Sequence[str] | None = None
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)
    interactive: bool = True  # False when nobody can answer a confirmation (headless): "ask" becomes deny
    policy_paths: Sequence[Path] = ()  # --policy: replaces the user tier's ~/.gemini/policies
    allowed_tools: Sequence[str] = ()  # --allowed-tools: added to tools.allowed
    allowed_mcp_server_names: Sequence[str] | None = None  # --allowed-mcp-server-names: replaces mcp.allowed
    include_directories: Sequence[Path] = ()  # --include-directories: more workspace roots


@dataclass
class SessionSetup:
    """Per-session inputs from the adapter."""

    cwd: Path
    confirmer: Confirmer
    fs: FileSystem | None = None
    extra_roots: Sequence[Path] = ()
    approval_mode: ApprovalMode | None = None
    model: str | None = None
    client_mcp_servers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # from the editor: trusted
    overrides: Mapping[str, Any] | None = None  # editor settings, nested like settings.json
    editor_trust: bool | None = None
    session_id: str | None = None
    history: Sequence[Content] = ()
    record: bool = True
    # What the adapter contributes, given at construction (nothing is patched into a session afterwards):
    notice_sink: Callable[[ev.Notice], None] | None = None  # notices outside a prompt (else kept in ``notices``)
    # Built-in tools the editor provides instead, by name (ACP's terminal runs run_shell_command in the editor);
    # each factory gets the session's ToolContext.
    replace_tools: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)


@dataclass
class SessionHandle:
    """A session and the things it owns; ``aclose`` releases them (MCP servers, recorder)."""

    session: Session
    workspace: Workspace
    settings: LoadedSettings
    trusted: bool
    trust_reason: str
    notices: list[ev.Notice]
    registry: ToolRegistry  # the session's tools, concrete: MCP and discovery add to it (the core sees a ToolSet)
    mcp: McpManager | None = None
    recorder: SessionRecorder | None = None
    store: SessionStore | None = None
    checkpointer: ShadowGitCheckpointer | None = None
    notice_sink: Callable[[ev.Notice], None] | None = None
    background: list[asyncio.Task[None]] = field(default_factory=list)
    temp_dir: Path | None = None  # removed by aclose
    router: ModelRouter | None = None

    def set_model(self, value: str) -> None:
        """Switch model, or provider with ``provider:name`` (from the picker); the conversation carries on.
        Raises ValueError naming what is wrong."""
        if self.router is None:
            self.session.model = value
            return
        client, model = self.router.switch(value)
        self.session.client = client
        self.session.model = model
        self.session.options.allow_fallback = self.router.provider == "gemini"

    async def model_choices(self) -> list[tuple[str, str]]:
        """(value, name) pairs for the editors' model pickers: what the endpoints offer, the current model first."""
        if self.router is None:
            return [(self.session.model, self.session.model)]
        return [(c.value, c.name) for c in await self.router.choices(self.session.model)]

    @property
    def provider(self) -> str:
        return self.router.provider if self.router is not None else "gemini"

    @property
    def lists_models(self) -> bool:
        """Whether the picker's models come from an endpoint (so they arrive later, over the network)."""
        return self.router is not None and "openai" in self.router.providers

    def provider_summary(self) -> str:
        return self.router.describe() if self.router is not None else "unknown"

    commands: Commands | None = None
    extensions: list[Any] = field(default_factory=list)  # the active extensions' manifests

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

    def notify(self, notice: ev.Notice) -> None:
        """Deliver a notice now (during a prompt, or through the adapter's sink), else keep it for later."""
        if self.session.running:
            self.session.emit(notice)
        elif self.notice_sink is not None:
            self.notice_sink(notice)
        else:
            self.notices.append(notice)

    async def start_hooks(self, source: str) -> None:
        """SessionStart hooks: their messages are shown, their context goes with the first prompt."""
        hooks = self.session.hooks
        if hooks is None or not hooks.has("SessionStart", source):
            return
        outcome = await hooks.fire("SessionStart", {"source": source}, source)
        for level, message in outcome.notices:
            self.notify(ev.Notice(level, message))
        self.session.start_context = outcome.additional_context

    async def aclose(self) -> None:
        hooks = self.session.hooks
        if hooks is not None and hooks.has("SessionEnd", "exit"):
            # Best effort, bounded by each hook's timeout; nothing it says can keep the session open.
            try:
                await hooks.fire("SessionEnd", {"reason": "exit"}, "exit")
            except Exception:
                log.exception("SessionEnd hooks failed")
        self.session.cancel()
        for task in self.background:
            task.cancel()
        if self.mcp is not None:
            await self.mcp.aclose()
        if self.recorder is not None:
            self.recorder.close()
        if self.temp_dir is not None:
            await asyncio.to_thread(remove_temp_dir, self.temp_dir)


class Runtime:
    def __init__(self, options: RuntimeOptions | None = None) -> None:
        self.options = options or RuntimeOptions()
        self._model: ModelClient | None = None  # the replay model: one script for the whole process
        self._clients: dict[Hashable, ModelClient] = {}  # one client per distinct credentials

    def model_client(self, env: Mapping[str, str] | None = None, choice: ProviderChoice | None = None) -> ModelClient:
        """The replay model when scripted, else the chosen provider's client (raises AuthError saying what to
        set). ``env`` is the environment after ``.env`` files were loaded (users often keep their key in one);
        ``choice`` is the provider resolved with the session's settings (else from ``env`` alone)."""
        if self.options.fake_responses is not None:
            if self._model is None:
                from agent_lsp.model.replay import ReplayModel

                self._model = ReplayModel.from_file(self.options.fake_responses, chunk_delay=self.options.chunk_delay)
            return self._model
        from agent_lsp.model.provider import resolve_provider

        env = env if env is not None else self._user_env()
        choice = choice or resolve_provider(None, env, self.options.model)
        # Keyed by the resolved credentials (provider, key, project, endpoint): a key read from one workspace's
        # .env never serves a session of another workspace, while sessions with the same credentials share one.
        key = _credentials(choice, env)
        client = self._clients.get(key)
        if client is None:
            client = self._clients[key] = build_client(choice, env)
        return client

    def _router(self, env: Mapping[str, str], settings: ModelSettings, explicit: str | None) -> tuple[Any, str]:
        """The session's ModelRouter and the model name it starts with."""
        from agent_lsp.model.router import ModelRouter

        if self.options.fake_responses is not None:
            router = ModelRouter("replay", "--fake-responses", {"replay": lambda: self.model_client(env)})
            return router, explicit or settings.name
        from agent_lsp.model import provider as prov

        choice = prov.resolve_provider(settings, env, explicit)
        builders: dict[str, Callable[[], ModelClient]] = {choice.provider: lambda: self.model_client(env, choice)}
        described: dict[str, str] = {}
        limits: dict[str, Callable[[str], int]] = {}
        if choice.openai is not None:
            described["openai"] = choice.openai.describe()
            limits["openai"] = choice.openai.context_window
        if choice.provider == "openai" and prov.gemini_available(env):
            builders["gemini"] = lambda: self.model_client(env, prov.ProviderChoice("gemini", None, "also available"))
        elif choice.provider == "gemini" and prov.openai_configured(settings, env):
            other = prov.ProviderChoice("openai", None, "also available", prov.openai_config(settings, env))
            assert other.openai is not None
            described["openai"] = other.openai.describe()
            limits["openai"] = other.openai.context_window
            builders["openai"] = lambda: self.model_client(env, other)
        if "gemini" in builders:
            from agent_lsp.model.auth import resolve_auth

            described["gemini"] = resolve_auth(env).describe()
        router = ModelRouter(choice.provider, choice.reason, builders, described, limits)
        if "gemini" in builders:
            router.gemini_models = _gemini_lister(router)
        return router, choice.model or settings.name

    def _user_env(self) -> dict[str, str]:
        """The process environment plus the user-level ``.env`` files (never a workspace's)."""
        from agent_lsp.config.dotenv import load_env_files

        env = dict(self.options.env)
        load_env_files([], trusted=False, env=env)
        return env

    def check_auth(self) -> str | None:
        """A message saying what credentials are missing, or None when a model can be built."""
        if self.options.fake_responses is not None:
            return None
        from agent_lsp.config.loader import load_settings
        from agent_lsp.errors import AuthError
        from agent_lsp.model.provider import resolve_provider

        env = self._user_env()
        try:
            resolve_provider(load_settings([], trusted=False, env=env).settings.model, env, self.options.model)
        except AuthError as exc:
            return str(exc)
        return None

    async def create_session(self, setup: SessionSetup) -> SessionHandle:
        # Settings, memory and tool set-up touch the disk: keep them off the event loop.
        handle, ctx, settings = await asyncio.to_thread(self._create_sync, setup)
        self._start_tools(handle, ctx, settings, setup)
        # Load the model client while the user types, once the session/new answer is out (the delay lets
        # the adapter write it first): see GeminiClient.warm. The replay model has nothing to warm.
        warm = getattr(handle.session.client, "warm", None)
        if callable(warm):
            asyncio.get_running_loop().call_later(0.05, warm)

        await handle.start_hooks("resume" if setup.history else "startup")
        return handle

    def _create_sync(self, setup: SessionSetup) -> tuple[SessionHandle, Any, Any]:
        from agent_lsp.config.dotenv import load_env_files
        from agent_lsp.config.loader import load_settings, read_folder_trust_enabled
        from agent_lsp.config.memory import JitMemoryLoader, load_memory
        from agent_lsp.config.trust import decide_trust
        from agent_lsp.core.mentions import MentionExpander
        from agent_lsp.core.prompts import folder_tree, system_prompt
        from agent_lsp.core.retry import RetryPolicy
        from agent_lsp.core.scheduler import Scheduler
        from agent_lsp.tools.builtins import builtin_tools
        from agent_lsp.tools.context import ToolContext
        from agent_lsp.tools.read_many_files import read_path_for_command, read_paths_for_prompt
        from agent_lsp.tools.registry import ToolRegistry

        cwd = setup.cwd.resolve()
        env = dict(self.options.env)
        notices: list[ev.Notice] = []
        # Trust first, from user/system layers only: a workspace file must never vote on its own trust.
        decision = decide_trust(
            cwd,
            settings_folder_trust_enabled=read_folder_trust_enabled(env),
            env=env,
            editor_trust=setup.editor_trust,
        )
        trusted = decision.trusted
        load_env_files([cwd, *setup.extra_roots], trusted=trusted, env=env)
        loaded = load_settings([cwd, *setup.extra_roots], trusted=trusted, env=env, overrides=setup.overrides)
        for err in loaded.errors:
            notices.append(ev.Notice("error", f"Settings error in {err}"))
        if not trusted:
            notices.append(ev.Notice("warning", f"Workspace not trusted: {decision.reason}"))
        s = loaded.settings
        extensions = _extensions(cwd, self.options.extensions, notices)

        roots = [cwd, *setup.extra_roots, *(cwd / p for p in self.options.include_directories)]
        for extra in s.context.include_directories:
            p = Path(os.path.expanduser(extra))
            roots.append(p if p.is_absolute() else cwd / p)
        temp_dir = _new_temp_dir()
        workspace = Workspace([r for r in roots if r.exists()] or [cwd], extra_readable=[temp_dir])

        mode: ApprovalMode = setup.approval_mode or self.options.approval_mode or s.general.default_approval_mode
        if mode == "yolo" and s.security.disable_yolo_mode:
            notices.append(ev.Notice("warning", "yolo mode is disabled by settings; using default"))
            mode = "default"
        from agent_lsp.policy.loader import load_policies, policy_sources

        policies = load_policies(policy_sources(cwd, trusted=trusted, policy_paths=self.options.policy_paths, env=env))
        for problem in policies.errors:
            notices.append(ev.Notice("error", str(problem)))
        mcp_allowed = self.options.allowed_mcp_server_names
        policy = Policy(
            mode="default",
            core=s.tools.core,
            allowed=[*s.tools.allowed, *self.options.allowed_tools],
            exclude=[*s.tools.exclude, *(t for m in extensions for t in m.exclude_tools)],
            trusted=trusted,
            interactive=self.options.interactive,
            rules=policies.rules,
            mcp_allowed=mcp_allowed if mcp_allowed is not None else s.mcp.allowed,
            mcp_excluded=s.mcp.excluded,
        )
        refused = policy.set_mode(mode)
        if refused:
            notices.append(ev.Notice("warning", f"Approval mode {mode} refused: {refused}"))

        router, model_name = self._router(env, s.model, setup.model or self.options.model)
        client = router.client()
        file_names = [s.context.file_name] if isinstance(s.context.file_name, str) else list(s.context.file_name)
        fs = setup.fs or LocalFileSystem()
        from agent_lsp.config.paths import gemini_dir

        ctx = ToolContext(
            workspace=workspace,
            fs=fs,
            temp_dir=temp_dir,
            # google_web_search needs Gemini (grounding); with another provider it uses Gemini's key if there is one.
            model=router.client("gemini") if "gemini" in router.providers else client,
            model_name="gemini-2.5-flash",
            respect_git_ignore=s.context.file_filtering.respect_git_ignore,
            respect_gemini_ignore=s.context.file_filtering.respect_gemini_ignore,
            shell_inactivity_timeout_s=float(s.tools.shell.inactivity_timeout),
            web_fetch_allow_private=s.tools.web_fetch.allow_private_addresses,
            global_memory_file=gemini_dir() / file_names[0],
            memory_file_name=file_names[0],
        )
        tools = [setup.replace_tools[t.name](ctx) if t.name in setup.replace_tools else t for t in builtin_tools(ctx)]
        if router.provider == "openai" and "gemini" not in router.providers:
            # Search grounding is a Gemini feature: without a Gemini key the tool is not offered at all.
            tools = [t for t in tools if t.name != "google_web_search"]
        registry = ToolRegistry(tools)
        skills = _skill_set(s, cwd, trusted, notices, extensions)
        skill_tool = None
        if skills is not None:
            from agent_lsp.tools.activate_skill import ActivateSkillTool

            skill_tool = ActivateSkillTool(skills, workspace.add_readable, lambda folder: folder_tree(folder))
            if skills.enabled():
                registry.register(skill_tool)

        context_files = [f for m in extensions for f in m.context_files]
        memory_state = {
            "result": load_memory(workspace.roots, file_names=file_names, trusted=trusted, extra_files=context_files)
        }
        jit = JitMemoryLoader(workspace.roots, file_names, memory_state["result"].files, trusted=trusted)

        checkpointer = None
        checkpointing = self.options.checkpointing
        if s.general.checkpointing.enabled:
            checkpointing = True
        if checkpointing:
            from agent_lsp.store.checkpoints import ShadowGitCheckpointer

            checkpointer = ShadowGitCheckpointer(workspace.primary)

        store: SessionStore | None = None
        recorder: SessionRecorder | None = None
        setup_id: str | None
        if setup.record:
            from agent_lsp.store.sessions import SessionStore, new_session_id

            store = SessionStore(workspace.primary)
            setup_id = setup.session_id or new_session_id()
            recorder = store.recorder(setup_id, cwd)
        else:
            setup_id = setup.session_id

        sinks: list[Any] = [recorder] if recorder is not None else []
        if s.telemetry.enabled:
            from agent_lsp.store.telemetry import telemetry_from_settings

            tele = telemetry_from_settings(s.telemetry.model_dump(by_alias=True))
            if tele is not None:
                sinks.append(tele)

        ids: dict[str, str] = {}
        hooks = _hook_system(s, cwd, notices, lambda: ids.get("id", ""), recorder, extensions)

        def scheduler_factory(
            emit: Callable[[ev.AgentEvent], None],
            history: Callable[[], Sequence[Content]],
            delivered: Callable[[], Awaitable[None]],
        ) -> Scheduler:
            return Scheduler(
                registry,
                policy,
                setup.confirmer,
                emit,
                delivered=delivered,
                temp_dir=temp_dir,
                checkpointer=checkpointer,
                jit_memory=jit,
                history=history,
                on_save_rule=_save_allowed_rules,
                permanent_approval=s.security.enable_permanent_tool_approval,
                truncate_threshold=s.tools.truncate_tool_output_threshold,
                hooks=hooks,
            )

        async def read_mentions(paths: list[str]) -> tuple[list[Any], list[str]]:
            return await read_paths_for_prompt(ctx, paths)

        tree = folder_tree(workspace.primary)
        options = SessionOptions(
            model=model_name,
            max_session_turns=s.model.max_session_turns,
            compression_threshold=s.model.compression_threshold
            or s.model.chat_compression.context_percentage_threshold,
            loop_detection=not s.model.disable_loop_detection,
            retry=RetryPolicy(max_attempts=s.general.max_attempts),
            # Pro → flash fallback is a Gemini notion; another provider's 429s are just retried.
            allow_fallback=router.provider == "gemini",
            token_limit=router.token_limit,
        )
        session = Session(
            model=client,
            registry=registry,
            scheduler_factory=scheduler_factory,
            policy=policy,
            options=options,
            system_prompt=lambda: system_prompt(
                workspace.roots,
                memory=memory_state["result"].text,
                plan_mode=policy.mode == "plan",
                tree=tree,
                skills=[(k.name, k.description, str(k.location)) for k in skills.enabled()] if skills else (),
            ),
            session_id=setup_id,
            history=setup.history,
            sinks=sinks,
            expand_prompt=MentionExpander(read_mentions),
            on_history=recorder.record_history if recorder is not None else None,
            roots=workspace.roots,
            hooks=hooks,
        )
        ids["id"] = session.id
        handle = SessionHandle(
            session=session,
            workspace=workspace,
            settings=loaded,
            trusted=trusted,
            trust_reason=decision.reason,
            notices=notices,
            registry=registry,
            recorder=recorder,
            store=store,
            checkpointer=checkpointer,
            router=router,
            temp_dir=temp_dir,
            notice_sink=setup.notice_sink,
        )
        handle.extensions = extensions
        command_ctx = _command_context(handle, memory_state, file_names, ctx, context_files)
        command_ctx.custom = _custom_commands(cwd, trusted, notices, extensions)
        command_ctx.read_path = lambda path: read_path_for_command(ctx, path)
        command_ctx.extensions = lambda: _describe_extensions(extensions, trusted)
        if skills is not None and skill_tool is not None:
            command_ctx.skills = _SkillControl(skills, skill_tool, registry, cwd, handle)
        session.commands = handle.commands = Commands(command_ctx)
        return handle, ctx, s

    def _start_tools(self, handle: SessionHandle, ctx: Any, s: Any, setup: SessionSetup) -> None:
        """MCP servers and discovered tools start in the background: they never delay the session."""
        from agent_lsp.mcp.config import McpServerSpec

        specs = []
        servers: dict[str, Mapping[str, Any]] = {}
        allowed = self.options.allowed_mcp_server_names
        allowed = allowed if allowed is not None else s.mcp.allowed
        for name, cfg in s.mcp_servers.items():
            if (allowed is not None and name not in allowed) or name in s.mcp.excluded:
                continue
            servers[name] = cfg.model_dump(by_alias=True, exclude_none=True)
        if handle.trusted:
            # An extension's servers start only in trusted folders; a settings server of the same name wins.
            for manifest in handle.extensions:
                for name, cfg in manifest.mcp_servers.items():
                    if (allowed is not None and name not in allowed) or name in s.mcp.excluded:
                        continue
                    servers.setdefault(name, {k: v for k, v in cfg.items() if k != "trust"})
        elif any(m.mcp_servers for m in handle.extensions):
            names = ", ".join(m.name for m in handle.extensions if m.mcp_servers)
            handle.notify(ev.Notice("warning", f"MCP servers of extensions ({names}) not started: folder not trusted"))
        servers.update(setup.client_mcp_servers)
        for name, raw in servers.items():
            try:
                specs.append(McpServerSpec.from_settings(name, dict(raw)))
            except Exception as exc:
                handle.notify(ev.Notice("error", f"MCP server '{name}' is misconfigured: {exc}"))
        if specs:
            from agent_lsp.mcp.manager import McpManager

            handle.mcp = McpManager(handle.registry, specs, on_notice=handle.notify)
            handle.mcp.start()
            handle.session.before_model = _mcp_waiter(handle.session, handle.mcp)
        if s.tools.discovery_command and s.tools.call_command:
            from agent_lsp.tools.discovered import discover_tools

            async def discover() -> None:
                from agent_lsp.tools.discovered import DiscoveryError

                try:
                    tools = await discover_tools(ctx, s.tools.discovery_command, s.tools.call_command)
                except DiscoveryError as exc:
                    # Keep what was well formed; say what was not.
                    tools = list(exc.tools)
                    handle.notify(ev.Notice("error", "Tool discovery: " + "; ".join(exc.problems)))
                for tool in tools:
                    try:
                        handle.registry.register(tool)
                    except ValueError as exc:
                        handle.notify(ev.Notice("warning", f"Discovered tool skipped: {exc}"))

            handle.background.append(asyncio.get_running_loop().create_task(discover()))

    async def load_session(self, session_id: str, setup: SessionSetup) -> tuple[SessionHandle, list[ev.AgentEvent]]:
        """Reopen a recorded session: its history for the model, its events for the editor to redraw."""
        from agent_lsp.store.sessions import SessionStore

        store = SessionStore(setup.cwd.resolve())
        loaded = await asyncio.to_thread(store.load, session_id)
        setup.session_id = session_id
        setup.history = loaded.history
        handle = await self.create_session(setup)
        handle.session.title = loaded.info.title or None
        if loaded.skipped:
            handle.notify(
                ev.Notice(
                    "warning",
                    f"{loaded.skipped} unreadable line(s) of this session's recording were left out "
                    "(a write interrupted by a crash leaves one).",
                )
            )
        return handle, loaded.events


def build_client(choice: ProviderChoice, env: Mapping[str, str]) -> ModelClient:
    """The ModelClient for a resolved provider choice (each SDK is imported only when first used)."""
    if choice.provider == "openai":
        from agent_lsp.model.openai_compat import OpenAIClient

        assert choice.openai is not None
        return OpenAIClient(choice.openai)
    from agent_lsp.model.auth import resolve_auth
    from agent_lsp.model.gemini import GeminiClient

    return GeminiClient(resolve_auth(env))


def _credentials(choice: ProviderChoice, env: Mapping[str, str]) -> Hashable:
    """What makes two clients interchangeable: the provider and its resolved credentials and endpoint."""
    if choice.provider == "openai":
        config = choice.openai
        assert config is not None
        limits = tuple(sorted(config.limits.items()))
        return ("openai", config.base_url, config.api_key, config.key_env, config.default_limits, limits)
    from agent_lsp.model.auth import resolve_auth

    return ("gemini", resolve_auth(env))


def _gemini_lister(router: ModelRouter) -> Callable[[], Awaitable[list[str]]]:
    """The Gemini picker: the key's own models when the API lists them, else Gemini CLI 0.61's choices."""

    async def names() -> list[str]:
        from agent_lsp.model.catalog import CHOICE_IDS, list_api_models
        from agent_lsp.model.router import LIST_TIMEOUT_S

        try:
            async with asyncio.timeout(LIST_TIMEOUT_S):
                found = await list_api_models(router.client("gemini"))
        except TimeoutError:
            found = None
        return [c.id for c in found] if found else list(CHOICE_IDS)

    return names


def _mcp_waiter(session: Session, mcp: McpManager) -> Callable[[], Awaitable[None]]:
    """The first prompt waits for MCP servers still connecting (as Gemini CLI waits for discovery), saying so."""

    async def wait() -> None:
        starting = [name for name, state in mcp.status().items() if state == "connecting"]
        if not starting:
            return
        session.emit(ev.Notice("info", f"Waiting for MCP server(s) to start: {', '.join(starting)}"))
        await mcp.wait_ready(mcp.connect_timeout_s)
        ready = [name for name in starting if mcp.status().get(name) == "connected"]
        if ready:
            tools = sum(len(mcp.tool_names(name)) for name in ready)
            session.emit(ev.Notice("info", f"MCP server(s) ready: {', '.join(ready)} ({tools} tool(s))"))

    return wait


def _command_context(
    handle: SessionHandle, memory_state: dict[str, Any], file_names: list[str], ctx: Any, context_files: list[Path]
) -> Any:
    from agent_lsp.config.memory import load_memory
    from agent_lsp.core.commands import CommandContext

    async def reload() -> str:
        result = await asyncio.to_thread(
            load_memory,
            handle.workspace.roots,
            file_names=file_names,
            trusted=handle.trusted,
            extra_files=context_files,
        )
        memory_state["result"] = result
        return f"Reloaded memory from {len(result.files)} file(s) ({len(result.text)} characters)."

    async def add(fact: str) -> str:
        from agent_lsp.tools.memory_tool import MemoryTool

        tool = MemoryTool(ctx)
        result = await tool.build({"fact": fact}).execute(lambda _chunk: None)
        await reload()
        return result.display or (result.llm_content if isinstance(result.llm_content, str) else "Saved.")

    list_cp = restore_cp = None
    cp = handle.checkpointer
    if cp is not None:

        def list_cp() -> list[tuple[str, str]]:
            return [(c.id, f"{c.tool_name} {c.file or ''} at {c.created}".strip()) for c in cp.list()]

        async def restore_cp(session: Session, checkpoint_id: str) -> str:
            restored = await cp.restore(checkpoint_id)
            session.history.replace(restored.history)
            # The checkpoint was taken just before a call ran: answer it, so the history stays valid.
            session.history.answer_pending("Not applied: the user restored the files to before this call.")
            return f"Restored files and conversation to checkpoint `{checkpoint_id}`."

    return CommandContext(
        provider=handle.provider_summary,
        memory_text=lambda: memory_state["result"].text,
        memory_files=lambda: [str(f) for f in memory_state["result"].files],
        reload_memory=reload,
        add_memory=add,
        list_checkpoints=list_cp,
        restore_checkpoint=restore_cp,
    )


def _hook_system(
    s: Any,
    cwd: Path,
    notices: list[ev.Notice],
    session_id: Callable[[], str],
    recorder: Any,
    extensions: list[Any],
) -> Any:
    """The session's hooks, from settings layers already filtered by trust (a workspace's only when trusted),
    then the active extensions' ``hooks/hooks.json``."""
    from agent_lsp.extensions.manifest import read_hooks

    raw: dict[str, Any] = dict(s.hooks)
    for manifest in extensions:
        extra, problem = read_hooks(manifest)
        if problem:
            notices.append(ev.Notice("error", problem))
        for event, groups in extra.items():
            old = raw.get(event, [])
            raw[event] = [*old, *groups] if isinstance(groups, list) and isinstance(old, list) else groups
    if not s.hooks_config.enabled or not raw:
        return None
    from agent_lsp.hooks.config import parse_hooks
    from agent_lsp.hooks.system import HookSystem
    from agent_lsp.tools.shell import shell_env

    commands, problems = parse_hooks(raw, s.hooks_config.disabled)
    notices.extend(ev.Notice("error", f"Settings error: {problem}") for problem in problems)
    if not commands:
        return None
    transcript = (lambda: str(recorder.path)) if recorder is not None and hasattr(recorder, "path") else (lambda: "")
    return HookSystem(commands, cwd=cwd, env=shell_env(), session_id=session_id, transcript=transcript)


def _extensions(cwd: Path, only: Sequence[str] | None, notices: list[ev.Notice]) -> list[Any]:
    """The extensions enabled for this folder (or named with -e); broken ones become notices."""
    from agent_lsp.extensions.store import active

    manifests, problems = active(cwd, only)
    notices.extend(ev.Notice("error", problem) for problem in problems)
    return manifests


def _describe_extensions(extensions: list[Any], trusted: bool) -> str:
    if not extensions:
        return "No extensions are active here. Install one with `agent-lsp extensions install <path>`."
    lines = ["Active extensions:"]
    for m in extensions:
        servers = f"; MCP servers: {', '.join(m.mcp_servers)}" if m.mcp_servers else ""
        if servers and not trusted:
            servers += " (not started: folder not trusted)"
        lines.append(f"- `{m.name}` {m.version}: {m.description or '(no description)'}{servers}")
    return "\n".join(lines)


def _skill_set(s: Any, cwd: Path, trusted: bool, notices: list[ev.Notice], extensions: list[Any]) -> Any:
    """The agent skills of the user and (trusted) workspace, or None when skills are turned off."""
    if not s.skills.enabled:
        return None
    from agent_lsp.config.paths import home
    from agent_lsp.config.skills import SkillSet, skill_dirs

    ext = [(m.name, m.path) for m in extensions]
    skills = SkillSet(skill_dirs(cwd, home=home(), trusted=trusted, extensions=ext), s.skills.disabled)
    notices.extend(ev.Notice("warning", problem) for problem in skills.problems)
    return skills


class _SkillControl:
    """/skills for one session: list, enable/disable (written to settings, applied at once), reload."""

    def __init__(self, skills: Any, tool: Any, registry: Any, cwd: Path, handle: SessionHandle) -> None:
        self.skills, self.tool, self.registry, self.cwd, self.handle = skills, tool, registry, cwd, handle

    def listing(self) -> str:
        if not self.skills.all:
            return "No agent skills found. Add a folder with a SKILL.md to `~/.gemini/skills/` or `.gemini/skills/`."
        lines = ["Agent skills:"]
        for skill in sorted(self.skills.all.values(), key=lambda k: k.name):
            state = "disabled" if self.skills.get(skill.name) is None else "enabled"
            active = ", active" if skill.name in self.skills.active else ""
            lines.append(f"- `{skill.name}` ({skill.source}, {state}{active}): {skill.description}")
        return "\n".join(lines)

    def toggle(self, name: str, enable: bool, scope: str) -> str:
        from agent_lsp.config.skills import set_disabled, settings_file
        from agent_lsp.errors import ConfigError

        if name not in self.skills.all:
            return f"No skill named `{name}`. Try `/skills list`."
        if scope == "workspace" and not self.handle.trusted:
            return "This folder is not trusted, so its settings cannot be changed from here."
        path = settings_file("workspace" if scope == "workspace" else "user", self.cwd)
        try:
            set_disabled(name, not enable, path)
        except ConfigError as exc:
            return f"Could not update the settings: {exc}"
        disabled = set(self.skills.disabled)
        disabled.discard(name.lower())
        if not enable:
            disabled.add(name.lower())
        self.skills.disabled = disabled
        self._sync_tool()
        return f"Skill `{name}` {'enabled' if enable else 'disabled'} ({scope} settings: {path})."

    def reload(self) -> str:
        problems = self.skills.reload()
        self._sync_tool()
        extra = "".join(f"\n- {p}" for p in problems)
        return f"Reloaded agent skills: {len(self.skills.enabled())} enabled.{extra}"

    def _sync_tool(self) -> None:
        """The tool joins once a skill is enabled (its list of names always follows the skill set)."""
        if self.skills.enabled() and self.registry.get(self.tool.name) is None:
            self.registry.register(self.tool)


def _custom_commands(cwd: Path, trusted: bool, notices: list[ev.Notice], extensions: list[Any]) -> Any:
    """The ``.toml`` commands of the user, (trusted) workspace and active extensions; files that cannot be used
    become notices."""
    from agent_lsp.config.custom_commands import CommandFiles, command_dirs
    from agent_lsp.config.paths import gemini_dir

    ext = [(m.name, m.path) for m in extensions]
    files = CommandFiles(command_dirs(cwd, user_dir=gemini_dir(), trusted=trusted, extensions=ext))
    notices.extend(ev.Notice("error", problem) for problem in files.problems)
    return files


def _save_allowed_rules(rules: list[str]) -> None:
    """ "Allow always and save": append allow rules to ~/.gemini/policies/auto-saved.toml, the file Gemini CLI
    0.61 saves them in (user tier, priority 950), so both agents honour them."""
    from agent_lsp.policy.loader import user_policies_dir
    from agent_lsp.policy.settings_rules import parse_entry
    from agent_lsp.workspace.filesystem import atomic_write

    path = user_policies_dir() / "auto-saved.toml"
    try:
        existing = path.read_text(encoding="utf-8") if path.exists() else ""
    except OSError as exc:
        log.warning("could not update %s: %s", path, exc)
        return
    blocks = []
    for entry in rules:
        name, prefix = parse_entry(entry)
        lines = ["[[rule]]", f"toolName = {json.dumps(name)}"]
        if prefix:
            lines.append(f"commandPrefix = {json.dumps(prefix)}")
        lines += ['decision = "allow"', "priority = 950"]
        block = "\n".join(lines)
        if block not in existing:
            blocks.append(block)
    if not blocks:
        return
    head = existing.rstrip("\n") + "\n\n" if existing.strip() else ""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, head + "\n\n".join(blocks) + "\n")
