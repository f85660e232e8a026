"""What a Session is built with: its options and the small Protocols of the parts the runtime hands it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from agent_lsp import events as ev
from agent_lsp.core.compression import DEFAULT_THRESHOLD
from agent_lsp.core.retry import RetryPolicy
from agent_lsp.core.scheduler import Scheduler
from agent_lsp.model.base import Content, Part
from agent_lsp.model.catalog import token_limit

if TYPE_CHECKING:
    from agent_lsp.core.session import Session


@dataclass
class SessionOptions:
    model: str = "gemini-2.5-pro"
    max_session_turns: int = -1  # -1: no limit
    compression_threshold: float = DEFAULT_THRESHOLD
    loop_detection: bool = True
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    allow_fallback: bool = True
    # Context window of a model name; the provider knows (Gemini's table, or an endpoint's configured sizes).
    token_limit: Callable[[str], int] = token_limit


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


class CommandRunner(Protocol):
    """Runs a slash command, emitting its output as events; may return a prompt to send to the model: text is
    expanded like a typed prompt (``@path``), parts (a custom command's finished prompt) are sent as they are."""

    async def __call__(
        self, session: Session, text: str, emit: Callable[[ev.AgentEvent], None]
    ) -> str | list[Part] | None: ...
