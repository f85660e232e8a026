"""Builder: the session's ToolContext and ToolRegistry (built-ins, the editor's replacements, agent skills)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lsp import events as ev
from agent_lsp.workspace.filesystem import FileSystem
from agent_lsp.workspace.roots import Workspace

if TYPE_CHECKING:
    from agent_lsp.child_env import ChildEnv
    from agent_lsp.config.settings import AgentsSettings, ContextSettings, SkillsSettings, ToolsSettings
    from agent_lsp.config.skills import SkillSet
    from agent_lsp.core.code_intel import CodeIntel
    from agent_lsp.core.edit_checks import EditChecks
    from agent_lsp.extensions.manifest import Manifest
    from agent_lsp.model.router import ModelRouter
    from agent_lsp.tools.activate_skill import ActivateSkillTool
    from agent_lsp.tools.base import Tool
    from agent_lsp.tools.context import ToolContext
    from agent_lsp.tools.registry import ToolRegistry
    from agent_lsp.tools.subagents import AgentDefinition


@dataclass(frozen=True)
class SessionTools:
    """The tools of one session: ``skill_tool`` joins the registry once a skill is enabled (see /skills)."""

    ctx: ToolContext
    registry: ToolRegistry
    skills: SkillSet | None = None
    skill_tool: ActivateSkillTool | None = None
    agents: Sequence[AgentDefinition] = ()  # the subagents invoke_agent offers (runtime/agents.py)
    edit_checks: EditChecks | None = None  # diagnostics after each edit, over ctx.code_intel (None: off or no source)


def build_tools(
    *,
    workspace: Workspace,
    fs: FileSystem,
    temp_dir: Path,
    router: ModelRouter,
    tools: ToolsSettings,
    context: ContextSettings,
    skill_settings: SkillsSettings,
    replace: Mapping[str, Callable[[ToolContext], Tool]],
    trusted: bool,
    extensions: Sequence[Manifest],
    notices: list[ev.Notice],
    interactive: bool = True,
    agent_settings: AgentsSettings | None = None,  # the ``agents`` settings (None: the defaults)
    agents_enabled: bool = True,  # experimental.enableAgents
    code_intel: CodeIntel | None = None,  # offers lsp (and rename_symbol) when set
    edit_checks: EditChecks | None = None,
    child_env: ChildEnv | None = None,  # what commands inherit (None: the agent's credentials kept out, no more)
) -> SessionTools:
    from agent_lsp.child_env import ChildEnv
    from agent_lsp.config.paths import gemini_dir
    from agent_lsp.tools.builtins import builtin_tools
    from agent_lsp.tools.context import ToolContext
    from agent_lsp.tools.registry import ToolRegistry

    memory_file = context.file_names[0]
    ctx = ToolContext(
        workspace=workspace,
        fs=fs,
        temp_dir=temp_dir,
        # google_web_search needs Gemini (grounding); with another provider it uses Gemini's key if there is one.
        model=router.client("gemini") if "gemini" in router.providers else router.client(),
        model_name="gemini-2.5-flash",
        respect_git_ignore=context.file_filtering.respect_git_ignore,
        respect_gemini_ignore=context.file_filtering.respect_gemini_ignore,
        shell_inactivity_timeout_s=float(tools.shell.inactivity_timeout),
        web_fetch_allow_private=tools.web_fetch.allow_private_addresses,
        global_memory_file=gemini_dir() / memory_file,
        memory_file_name=memory_file,
        code_intel=code_intel,
        child_env=child_env or ChildEnv(),
    )
    # The editor's own tools go in at construction, in the built-in's place (never swapped into a live registry).
    built = [replace[t.name](ctx) if t.name in replace else t for t in builtin_tools(ctx)]
    if router.provider == "openai" and "gemini" not in router.providers:
        # Search grounding is a Gemini feature: without a Gemini key the tool is not offered at all.
        built = [t for t in built if t.name != "google_web_search"]
    registry = ToolRegistry(built)
    registry.register(_exit_plan_mode(workspace, interactive))
    agents = _agents(workspace.primary, trusted, notices, agent_settings) if agents_enabled else []
    skills = _skill_set(skill_settings, workspace.primary, trusted, extensions, notices)
    if skills is None:
        return SessionTools(ctx, registry, agents=agents, edit_checks=edit_checks)
    from agent_lsp.core.prompts import folder_tree
    from agent_lsp.tools.activate_skill import ActivateSkillTool

    skill_tool = ActivateSkillTool(skills, workspace.add_readable, folder_tree)
    if skills.enabled():
        registry.register(skill_tool)
    return SessionTools(ctx, registry, skills, skill_tool, agents, edit_checks)


def _exit_plan_mode(workspace: Workspace, interactive: bool) -> Tool:
    """exit_plan_mode over the project's plans folder, which the file tools may use (plan mode writes plans there)."""
    from agent_lsp.config.paths import plans_dir
    from agent_lsp.tools.plan_mode import ExitPlanModeTool

    plans = plans_dir(workspace.primary).resolve()
    workspace.add_readable(plans)
    return ExitPlanModeTool(plans, interactive=interactive)


def _agents(
    cwd: Path, trusted: bool, notices: list[ev.Notice], settings: AgentsSettings | None
) -> list[AgentDefinition]:
    """The built-in subagents and those defined in ``~/.gemini/agents`` and (trusted) ``.gemini/agents``, with
    ``agents.overrides`` applied."""
    from agent_lsp.config.paths import home
    from agent_lsp.tools.subagents import agent_dirs, apply_overrides, load_agents

    agents, problems = load_agents(agent_dirs(cwd, home=home(), trusted=trusted))
    notices.extend(ev.Notice("error", problem) for problem in problems)
    agents, problems = apply_overrides(agents, settings.overrides if settings is not None else {})
    notices.extend(ev.Notice("warning", problem) for problem in problems)
    return agents


def _skill_set(
    settings: SkillsSettings, cwd: Path, trusted: bool, extensions: Sequence[Manifest], notices: list[ev.Notice]
) -> SkillSet | None:
    """The agent skills of the user and (trusted) workspace, or None when skills are turned off."""
    if not settings.enabled:
        return None
    from agent_lsp.config.paths import home
    from agent_lsp.config.skills import SkillSet, skill_dirs

    ext = [(m.name, m.path) for m in extensions]
    skills = SkillSet(skill_dirs(cwd, home=home(), trusted=trusted, extensions=ext), settings.disabled)
    notices.extend(ev.Notice("warning", problem) for problem in skills.problems)
    return skills
