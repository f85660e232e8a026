"""Builder: the session's slash commands, with everything they touch handed over in one CommandContext."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lsp import events as ev
from agent_lsp.core.commands import CommandContext, Commands
from agent_lsp.runtime.extensions import describe_extensions
from agent_lsp.runtime.memory import Memory
from agent_lsp.runtime.tools import SessionTools

if TYPE_CHECKING:
    from agent_lsp.config.custom_commands import CommandFiles
    from agent_lsp.config.skills import SkillSet
    from agent_lsp.core.prompt_commands import PromptCommandSource
    from agent_lsp.core.session_state import CommandSession
    from agent_lsp.extensions.manifest import Manifest
    from agent_lsp.model.base import Part
    from agent_lsp.model.router import ModelRouter
    from agent_lsp.store.checkpoints.roots import RootsCheckpointer
    from agent_lsp.tools.activate_skill import ActivateSkillTool
    from agent_lsp.tools.registry import ToolRegistry


def build_commands(
    *,
    cwd: Path,
    trusted: bool,
    router: ModelRouter,
    memory: Memory,
    tools: SessionTools,
    checkpointer: RootsCheckpointer | None,
    extensions: Sequence[Manifest],
    notices: list[ev.Notice],
    headless: bool = False,
    prompts: PromptCommandSource | None = None,
    mcp: Callable[[str], Awaitable[str]] | None = None,
) -> Commands:
    from agent_lsp.tools.read_many_files import read_path_for_command

    async def add_memory(fact: str) -> str:
        from agent_lsp.tools.memory_tool import MemoryTool

        result = await MemoryTool(tools.ctx).build({"fact": fact}).execute(lambda _chunk: None)
        await memory.reload()
        return result.display or (result.llm_content if isinstance(result.llm_content, str) else "Saved.")

    async def read_path(path: str) -> tuple[list[Part], list[str]]:
        return await read_path_for_command(tools.ctx, path)

    async def tasks(rest: str) -> str:
        from agent_lsp.tools.background_command import tasks_command

        return await tasks_command(tools.ctx.processes, rest)

    skills = None
    if tools.skills is not None and tools.skill_tool is not None:
        skills = SkillControl(tools.skills, tools.skill_tool, tools.registry, cwd, trusted)
    checkpoints = _Checkpoints(checkpointer) if checkpointer is not None else None
    return Commands(
        CommandContext(
            provider=router.describe,
            usage=router.ledger.totals,
            memory_text=lambda: memory.text,
            memory_files=lambda: memory.files,
            reload_memory=memory.reload,
            add_memory=add_memory,
            list_checkpoints=checkpoints.list if checkpoints is not None else None,
            restore_checkpoint=checkpoints.restore if checkpoints is not None else None,
            custom=_custom_commands(cwd, trusted, extensions, notices),
            read_path=read_path,
            skills=skills,
            extensions=lambda: describe_extensions(extensions, trusted),
            headless=headless,
            prompts=prompts,
            mcp=mcp,
            tasks=tasks,
        )
    )


class _Checkpoints:
    """/restore over the session's shadow-git checkpoints: the primary root's are listed, and restoring one puts
    every root back (each extra root to its own checkpoint taken before the same call)."""

    def __init__(self, checkpointer: RootsCheckpointer) -> None:
        self.checkpointer = checkpointer

    def list(self) -> list[tuple[str, str]]:
        found = self.checkpointer.primary.list()
        return [(c.id, f"{c.tool_name} {c.file or ''} at {c.created}".strip()) for c in found]

    async def restore(self, session: CommandSession, checkpoint_id: str) -> str:
        restored, roots = await self.checkpointer.restore(checkpoint_id)
        # The checkpoint was taken just before a call ran: answer it, so the history stays valid.
        session.restore_history(restored.history, "Not applied: the user restored the files to before this call.")
        return "\n".join([f"Restored files and conversation to checkpoint `{checkpoint_id}`.", *roots])


class SkillControl:
    """/skills for one session: list, enable/disable (written to settings, applied at once), reload."""

    def __init__(
        self, skills: SkillSet, tool: ActivateSkillTool, registry: ToolRegistry, cwd: Path, trusted: bool
    ) -> None:
        self.skills, self.tool, self.registry, self.cwd, self.trusted = skills, tool, registry, cwd, trusted

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
        if scope == "workspace" and not self.trusted:
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


def _custom_commands(
    cwd: Path, trusted: bool, extensions: Sequence[Manifest], notices: list[ev.Notice]
) -> CommandFiles:
    """The ``.toml`` commands of the user, (trusted) workspace and active extensions; files that cannot be used
    become notices."""
    from agent_lsp.config.custom_commands import CommandFiles, command_dirs
    from agent_lsp.config.paths import gemini_dir

    ext = [(m.name, m.path) for m in extensions]
    from agent_lsp.core.commands import COMMANDS

    dirs = command_dirs(cwd, user_dir=gemini_dir(), trusted=trusted, extensions=ext)
    files = CommandFiles(dirs, reserved=[c.name for c in COMMANDS])
    notices.extend(ev.Notice("error", problem) for problem in files.problems)
    return files
