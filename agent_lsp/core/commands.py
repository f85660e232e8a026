"""Slash commands shared by every adapter: /help, /compress, /stats, /memory, /restore, /init, and custom ones."""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from agent_lsp import events as ev
from agent_lsp.core.custom_commands import CommandAborted, CustomCommandDef, PathReader, expand_custom_command
from agent_lsp.core.prompt_commands import PromptCommandSource, run_prompt_command
from agent_lsp.core.rewind import rewind_command
from agent_lsp.errors import ConfigError
from agent_lsp.model.base import Part

if TYPE_CHECKING:
    from agent_lsp.core.session_state import CommandSession


@dataclass(frozen=True)
class CommandSpec:
    name: str
    description: str
    hint: str = ""  # what may follow the command, shown by editors


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("help", "List the available commands"),
    CommandSpec("compress", "Summarise the conversation so far to free context"),
    CommandSpec("stats", "Show token usage and turns for this session"),
    CommandSpec("memory", "Show, reload or add to the GEMINI.md memory", "show | reload | add <fact>"),
    CommandSpec("restore", "List checkpoints, or restore files and conversation to one", "[checkpoint id]"),
    CommandSpec("rewind", "List your messages, or go back to before one (files and conversation)", "[message number]"),
    CommandSpec("init", "Analyse the project and write a GEMINI.md for it"),
    CommandSpec("extensions", "List the extensions active in this workspace"),
    CommandSpec(
        "mcp", "List the MCP servers and what they offer, or restart them", "[refresh [server] | auth [server]]"
    ),
    CommandSpec("tasks", "List the background processes, show one's output, or stop one", "[<pid> | stop <pid>]"),
    CommandSpec(
        "skills",
        "List agent skills, or enable, disable or reload them",
        "list | enable <name> | disable <name> [--scope user|workspace] | reload",
    ),
)

_BUILTIN_NAMES = frozenset(c.name for c in COMMANDS) | {"bg", "background"}

INIT_PROMPT = (
    "Look through this project (its layout, build files, README, tests and main source files) and write a "
    "GEMINI.md at the root of the workspace that will help an agent work here: what the project is, how to "
    "build, run and test it, its conventions, and where the important code lives. Keep it short and factual. "
    "If a GEMINI.md already exists, improve it rather than replacing what is still true."
)


class SkillControl(Protocol):
    """The session's agent skills, as /skills shows and changes them (each answer is text for the user)."""

    def listing(self) -> str: ...

    def toggle(self, name: str, enable: bool, scope: str) -> str: ...

    def reload(self) -> str: ...


class CustomCommandSource(Protocol):
    """The user's and project's ``.toml`` commands; ``refresh`` rereads them if their files changed."""

    def current(self) -> Mapping[str, CustomCommandDef]: ...

    def refresh(self) -> tuple[bool, Sequence[str]]:
        """(whether the set changed, problems with files that could not be used)."""
        ...


@dataclass
class CommandContext:
    """What the commands may touch, handed over by the composition root."""

    provider: Callable[[], str] | None = None  # which provider answers, and why (shown by /stats)
    usage: Callable[[], ev.UsageTotals] | None = None  # the session's ledger: every model call (shown by /stats)
    memory_text: Callable[[], str] = lambda: ""
    memory_files: Callable[[], Sequence[str]] = tuple
    reload_memory: Callable[[], Awaitable[str]] | None = None
    add_memory: Callable[[str], Awaitable[str]] | None = None
    list_checkpoints: Callable[[], Sequence[tuple[str, str]]] | None = None  # (id, description)
    restore_checkpoint: Callable[[CommandSession, str], Awaitable[str]] | None = None
    extra: dict[str, str] = field(default_factory=dict)
    custom: CustomCommandSource | None = None
    read_path: PathReader | None = None  # ``@{path}`` in a custom command: parts and warnings
    skills: SkillControl | None = None
    extensions: Callable[[], str] | None = None  # /extensions: the active extensions, described
    # Headless (nobody to talk to), as Gemini CLI 0.61: an unknown command goes to the model as typed text, and a
    # custom command that cannot run ends the turn with an error (a non-zero exit).
    headless: bool = False
    prompts: PromptCommandSource | None = None  # MCP servers' prompts
    mcp: Callable[[str], Awaitable[str]] | None = None  # /mcp [refresh [server] | auth [server]]: the MCP servers
    tasks: Callable[[str], Awaitable[str]] | None = None  # /tasks: the session's background processes


class Commands:
    """A CommandRunner: parses ``/name args`` and runs it."""

    def __init__(self, ctx: CommandContext) -> None:
        self.ctx = ctx

    def specs(self) -> list[CommandSpec]:
        """Every command an editor may offer: the built-in ones, then the custom ones (which win a clash)."""
        custom = self.ctx.custom.current() if self.ctx.custom is not None else {}
        out = [c for c in COMMANDS if c.name not in custom]
        out.extend(CommandSpec(c.name, c.description) for c in sorted(custom.values(), key=lambda c: c.name))
        if self.ctx.prompts is not None:
            # A server's prompt never hides a built-in or custom command of the same name.
            taken = {c.name for c in out}
            out.extend(CommandSpec(*p) for p in self.ctx.prompts.specs() if p[0] not in taken)
        return out

    def refresh(self) -> tuple[bool, Sequence[str]]:
        """Reread custom commands if their files changed: (changed, problems to show)."""
        return self.ctx.custom.refresh() if self.ctx.custom is not None else (False, ())

    async def __call__(
        self, session: CommandSession, text: str, emit: Callable[[ev.AgentEvent], None]
    ) -> str | list[Part] | None:
        name, _, rest = text.lstrip("/").partition(" ")
        name = name.strip()
        rest = rest.strip()
        custom = self.ctx.custom.current().get(name) if self.ctx.custom is not None else None
        if custom is not None:
            try:
                return await expand_custom_command(
                    custom, rest, text.strip(), session=session, read_path=self.ctx.read_path, emit=emit
                )
            except CommandAborted as exc:
                if self.ctx.headless:
                    raise ConfigError(str(exc)) from exc
                emit(ev.Notice("error", str(exc)))
                return None
        if self.ctx.prompts is not None and name not in _BUILTIN_NAMES:
            handled, prompt = await run_prompt_command(self.ctx.prompts, name, rest, emit)
            if handled:
                return prompt
        say: Callable[[str], None] = lambda message: emit(ev.Content(message))  # noqa: E731
        if name == "help":
            say("\n".join(f"- `/{c.name}`{' ' + c.hint if c.hint else ''}: {c.description}" for c in self.specs()))
        elif name == "compress":
            event = await session.maybe_compress(force=True)
            if event is None:
                say("Nothing to compress yet.")
            else:
                told = f"Compressed the conversation from {event.original_tokens} to about {event.new_tokens} tokens."
                emit(ev.Content(told, compaction_id=event.compaction_id))  # not repeated where compactions are drawn
        elif name == "stats":
            u = session.usage
            provider = f"Provider: {self.ctx.provider()}\n\n" if self.ctx.provider is not None else ""
            say(
                f"Model: {session.model}\n\n{provider}Turns: {session.session_turns}\n\n"
                f"Tokens: {u.prompt_tokens} prompt, {u.candidates_tokens} output, {u.thoughts_tokens} thinking, "
                f"{u.cached_tokens} cached, {u.total_tokens} total.\n\nLast prompt size: {session.last_prompt_tokens}."
                + _all_calls(self.ctx.usage() if self.ctx.usage is not None else None)
            )
        elif name == "memory":
            await self._memory(rest, say)
        elif name == "restore":
            await self._restore(session, rest, say)
        elif name == "rewind":
            await rewind_command(session.rewinds, rest, say)
        elif name == "init":
            return INIT_PROMPT
        elif name == "skills":
            say(self._skills(rest))
        elif name == "mcp":
            say(await self.ctx.mcp(rest) if self.ctx.mcp is not None else "No MCP servers are configured.")
        elif name in ("tasks", "bg", "background") and self.ctx.tasks is not None:
            say(await self.ctx.tasks(rest))
        elif name == "extensions":
            say(self.ctx.extensions() if self.ctx.extensions is not None else "No extensions are active.")
        elif self.ctx.headless:
            return text  # not a command after all: the model reads it as written
        else:
            say(f"Unknown command `/{name}`. Try `/help`.")
        return None

    async def _memory(self, rest: str, say: Callable[[str], None]) -> None:
        sub, _, arg = rest.partition(" ")
        if sub in ("", "show"):
            files = self.ctx.memory_files()
            text = self.ctx.memory_text()
            listing = "\n".join(f"- {f}" for f in files) or "- (no memory files found)"
            say(f"Memory files:\n{listing}\n\n" + (f"```markdown\n{text}\n```" if text else "Memory is empty."))
        elif sub == "reload" and self.ctx.reload_memory is not None:
            say(await self.ctx.reload_memory())
        elif sub == "add" and self.ctx.add_memory is not None:
            fact = " ".join(shlex.split(arg)) if arg else ""
            say(await self.ctx.add_memory(fact) if fact else "Usage: `/memory add <fact>`")
        else:
            say("Usage: `/memory show | reload | add <fact>`")

    def _skills(self, rest: str) -> str:
        skills = self.ctx.skills
        if skills is None:
            return "Agent skills are off (`skills.enabled` is false in settings)."
        words = rest.split()
        scope = "user"
        if "--scope" in words:
            at = words.index("--scope")
            scope = words[at + 1] if at + 1 < len(words) else ""
            words = words[:at] + words[at + 2 :]
        sub = words[0] if words else "list"
        if scope not in ("user", "workspace"):
            return "Usage: `--scope user` or `--scope workspace`."
        if sub == "list" and len(words) <= 1:
            return skills.listing()
        if sub in ("reload", "refresh") and len(words) == 1:
            return skills.reload()
        if sub in ("enable", "disable") and len(words) == 2:
            return skills.toggle(words[1], sub == "enable", scope)
        return "Usage: `/skills list | enable <name> | disable <name> [--scope user|workspace] | reload`"

    async def _restore(self, session: CommandSession, rest: str, say: Callable[[str], None]) -> None:
        if self.ctx.list_checkpoints is None or self.ctx.restore_checkpoint is None:
            say("Checkpoints are off. Enable `general.checkpointing.enabled` in settings to use `/restore`.")
            return
        if not rest:
            items = self.ctx.list_checkpoints()
            say(
                "Checkpoints:\n" + "\n".join(f"- `{cid}`: {desc}" for cid, desc in items)
                if items
                else "No checkpoints yet: one is taken before each file-changing tool runs."
            )
            return
        say(await self.ctx.restore_checkpoint(session, rest))


def _all_calls(totals: ev.UsageTotals | None) -> str:
    """/stats' lines on every model call made for the session (subagents, compression, web tools, sampling)."""
    if totals is None or not totals.requests:
        return ""
    lines = [f"\n\nAll model calls of the session ({totals.requests}), by model:"]
    for m in totals.by_model:
        cost = f", about ${m.cost:.4f}" if m.cost is not None else ", no price known"
        tokens = f"{m.usage.prompt_tokens} prompt and {m.usage.candidates_tokens} output tokens"
        lines.append(f"- {m.model}: {m.requests} requests, {tokens}{cost}")
    if totals.cost is not None:
        lines.append(f"\nEstimated cost: ${totals.cost:.4f} (what is counted: docs/models.md#cost).")
    return "\n".join(lines)
