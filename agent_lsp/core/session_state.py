"""A session's run state and its dependencies, kept apart (as pydantic-ai's GraphAgentState / GraphAgentDeps):
``SessionState`` is what prompts change, owned by one ``Session``; ``SessionDeps`` is what the runtime built it
from, frozen. Also the narrow view of a session slash commands are handed (``CommandSession``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agent_lsp import events as ev
from agent_lsp.core.compression import DEFAULT_THRESHOLD
from agent_lsp.core.history import History
from agent_lsp.core.ports import Hooks, ToolPolicy, ToolSet
from agent_lsp.core.retry import RetryPolicy
from agent_lsp.model.base import Content, ModelClient, Part
from agent_lsp.model.catalog import token_limit

if TYPE_CHECKING:
    from agent_lsp.core.rewind import FileRewinder, SessionRewind
    from agent_lsp.core.scheduler import Scheduler
    from agent_lsp.core.tool import ToolCallRequestInfo
    from agent_lsp.core.tool_calls import CallOutcome


@dataclass(frozen=True)
class SessionOptions:
    """The settings slice a session runs by."""

    max_session_turns: int = -1  # -1: no limit
    compression_threshold: float = DEFAULT_THRESHOLD
    loop_detection: bool = True
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    # Context window of a model name; the provider knows (Gemini's table, or an endpoint's configured sizes).
    token_limit: Callable[[str], int] = token_limit


@dataclass
class SessionState:
    """Everything a session's prompts change, in one place: the conversation, the model that answers it (switched
    only through ``Session.switch_model``, or by a pro → flash fallback), and the counts. The Session and the
    PromptLoop it runs are its only writers; rewind, forks and queued prompts start from here."""

    client: ModelClient
    model: str
    allow_fallback: bool = True  # pro → flash after persistent 429s: a Gemini notion
    history: History = field(default_factory=History)
    usage: ev.Usage = field(default_factory=ev.Usage)
    turn_start: ev.UsageTotals | None = None  # the meter's reading when the running prompt started
    session_turns: int = 0
    last_prompt_tokens: int = 0
    # What the last request carried besides the history (system prompt, tool declarations): its prompt tokens
    # minus the history's estimate then, so an estimate of the next request's context does not drop by it.
    fixed_tokens: int = 0
    title: str | None = None
    start_context: str = ""  # what SessionStart hooks added: it goes with the first prompt


class PromptExpander(Protocol):
    """Turns a prompt's text into parts, reading ``@path`` mentions; returns warnings for the user."""

    async def __call__(self, text: str) -> tuple[list[Part], list[str]]: ...


class SchedulerFactory(Protocol):
    """Builds the scheduler of one turn: ``emit`` puts an event on the prompt's stream, ``delivered`` waits until
    the stream's consumer has taken every event emitted so far, ``history`` reads the conversation."""

    def __call__(
        self,
        emit: Callable[[ev.AgentEvent], None],
        history: Callable[[], Sequence[Content]],
        delivered: Callable[[], Awaitable[None]],
    ) -> Scheduler: ...


class CommandSession(Protocol):
    """What a slash command sees and does of its session: its counts, its tools and policy, compression, the
    user's own tool calls, a restored conversation. Not the Session itself."""

    @property
    def model(self) -> str: ...
    @property
    def usage(self) -> ev.Usage: ...
    @property
    def session_turns(self) -> int: ...
    @property
    def last_prompt_tokens(self) -> int: ...
    @property
    def registry(self) -> ToolSet: ...
    @property
    def policy(self) -> ToolPolicy: ...
    @property
    def rewinds(self) -> SessionRewind: ...

    async def maybe_compress(self, *, force: bool = False) -> ev.ChatCompressed | None: ...

    def new_call_prefix(self) -> str: ...

    async def run_user_tools(self, calls: Sequence[ToolCallRequestInfo]) -> dict[str, CallOutcome]: ...

    def restore_history(self, contents: Sequence[Content], note: str) -> None: ...


class CommandRunner(Protocol):
    """Runs a slash command, emitting its output as events; may return a prompt to send to the model: text is
    expanded like a typed prompt (``@path``), parts (a custom command's finished prompt) are sent as they are."""

    async def __call__(
        self, session: CommandSession, text: str, emit: Callable[[ev.AgentEvent], None]
    ) -> str | list[Part] | None: ...


@dataclass(frozen=True)
class SessionDeps:
    """What a session is built from, once, by the runtime; nothing here changes afterwards."""

    registry: ToolSet
    policy: ToolPolicy
    scheduler_factory: SchedulerFactory
    system_prompt: Callable[[], str]  # read on every request (memory, mode and skills change it)
    options: SessionOptions = field(default_factory=SessionOptions)
    expand_prompt: PromptExpander | None = None
    commands: CommandRunner | None = None
    on_history: Callable[[Sequence[Content]], None] | None = None  # the recorder, after every prompt
    roots: tuple[Path, ...] = ()
    hooks: Hooks | None = None
    # Awaited before a prompt's first model request (the runtime waits here for tools still starting).
    before_model: Callable[[], Awaitable[None]] | None = None
    # Rewind: the files (the checkpoints; None when they are off) and the recording (a message index cut from
    # it, or None when the last cut was undone).
    rewinder: FileRewinder | None = None
    on_rewind: Callable[[int | None], None] | None = None
    # A reading of the session's usage ledger: every model call made through its wiring (model/metered.py), not
    # only this loop's. None: not metered (no cost is reported).
    meter: Callable[[], ev.UsageTotals] | None = None
