"""A Session: one conversation's parts and history. ``send`` yields one typed event stream, ending with Stop.

How a prompt runs, in reading order: ``send`` starts it on the session's ``EventStream`` (event_stream.py);
``_run`` turns its end (done, cancelled, a model or config error) into the last events; ``_prompt`` prepares the
user's input (slash commands, ``@path`` mentions, BeforeAgent hooks, the context window); ``PromptLoop``
(prompt_loop.py) runs its turns and tool batches."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path

from agent_lsp import events as ev
from agent_lsp.core.agent_hooks import before_agent
from agent_lsp.core.event_stream import EventStream
from agent_lsp.core.history import History, estimate_tokens
from agent_lsp.core.hook_points import context_part
from agent_lsp.core.ports import EventSink, Hooks, ToolPolicy, ToolSet
from agent_lsp.core.prompt_loop import PromptLoop
from agent_lsp.core.session_parts import CommandRunner, PromptExpander, SchedulerFactory
from agent_lsp.core.session_parts import SessionOptions as SessionOptions  # built by the runtime from here
from agent_lsp.core.tool import ToolCallRequestInfo
from agent_lsp.core.tool_calls import CallOutcome
from agent_lsp.errors import ConfigError, ModelError
from agent_lsp.model.base import Content, ModelClient, Part

log = logging.getLogger(__name__)


class Session:
    """One conversation: its parts, its history and counts, and the prompts sent to it."""

    def __init__(
        self,
        *,
        model: ModelClient,
        registry: ToolSet,
        scheduler_factory: SchedulerFactory,
        policy: ToolPolicy,
        options: SessionOptions,
        system_prompt: Callable[[], str],
        session_id: str | None = None,
        history: Sequence[Content] = (),
        sinks: Sequence[EventSink] = (),
        expand_prompt: PromptExpander | None = None,
        commands: CommandRunner | None = None,
        on_history: Callable[[Sequence[Content]], None] | None = None,
        roots: Sequence[Path] = (),
        hooks: Hooks | None = None,
        before_model: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.id = session_id or uuid.uuid4().hex
        self.client = model
        self.registry = registry
        self.policy = policy
        self.options = options
        self.system_prompt = system_prompt
        self.history = History(history)
        self.expand_prompt = expand_prompt
        self.commands = commands
        self.on_history = on_history
        self.roots = list(roots)
        self.hooks = hooks
        self.start_context = ""  # what SessionStart hooks added: it goes with the first prompt
        self.session_turns = 0
        self.last_prompt_tokens = 0
        self.usage = ev.Usage()
        self.title: str | None = None
        # Awaited before a prompt's first model request (the runtime waits here for tools still starting).
        self.before_model = before_model
        self._scheduler_factory = scheduler_factory
        self._stream = EventStream(sinks)
        self.sinks = self._stream.sinks  # observers of every event (recorder, telemetry); append to add one
        # Bound once: ``emit`` runs for every streamed chunk. ``delivered`` waits until the prompt's consumer has
        # handled every event emitted so far (see EventStream.delivered).
        self.emit: Callable[[ev.AgentEvent], None] = self._stream.emit
        self.delivered: Callable[[], Awaitable[None]] = self._stream.delivered
        self._turns = PromptLoop(self, scheduler_factory)

    @property
    def model(self) -> str:
        return self.options.model

    @model.setter
    def model(self, name: str) -> None:
        self.options.model = name

    @property
    def context_window(self) -> int:
        """Tokens the current model can read."""
        return self.options.token_limit(self.model)

    @property
    def running(self) -> bool:
        return self._stream.running

    def cancel(self) -> None:
        """Cancel the running prompt; its stream ends with UserCancelled and Stop("cancelled")."""
        self._stream.cancel()

    def send(self, prompt: str | Sequence[Part], *, attachments: Sequence[Part] = ()) -> AsyncIterator[ev.AgentEvent]:
        """Run one prompt to the end. Every event is also given to the session's sinks.

        ``prompt`` is what the user typed (its ``@path`` mentions are read); ``attachments`` are contents the
        editor attached (files, resources), sent after it and never scanned for mentions. Iterating raises
        RuntimeError while another prompt of this session runs."""
        extra = tuple(attachments)
        return self._stream.run(lambda: self._run(prompt, extra), self._cancelled_early)

    def _cancelled_early(self) -> list[ev.AgentEvent]:
        return [ev.UserCancelled(), ev.Stop("cancelled", self.usage)]

    async def _run(self, prompt: str | Sequence[Part], attachments: tuple[Part, ...]) -> None:
        """The prompt's task: whatever ends it, pending calls are answered, Stop is the last event and the
        history is recorded."""
        stop: ev.StopReason = "end_turn"
        try:
            stop = await self._prompt(prompt, attachments)
        except asyncio.CancelledError:
            self.history.answer_pending("Cancelled by the user.")
            self.emit(ev.UserCancelled())
            stop = "cancelled"
            raise
        except (ModelError, ConfigError) as exc:
            self.history.answer_pending(f"Not run: {exc}")
            self.emit(ev.Error(str(exc), getattr(exc, "status", None), exc.meaning))
            stop = "error"
        finally:
            self.emit(ev.Stop(stop, self.usage))
            if self.on_history is not None:
                try:
                    self.on_history(self.history.contents())
                except Exception:
                    log.exception("recording history failed")

    async def _prompt(self, prompt: str | Sequence[Part], attachments: tuple[Part, ...] = ()) -> ev.StopReason:
        """The user's input, made ready for the model (or answered by a slash command); then its turns."""
        text = prompt if isinstance(prompt, str) else "".join(p.text or "" for p in prompt if not p.thought)
        self.emit(ev.UserMessage(text))
        if self.title is None and text.strip():
            self.title = derive_title(text)
            self.emit(ev.SessionTitle(self.title))
        all_text = isinstance(prompt, str) or all(p.text is not None for p in prompt)
        finished: list[Part] | None = None  # a custom command's prompt, already expanded
        if all_text and text.lstrip().startswith("/") and self.commands is not None:
            followup = await self.commands(self, text.strip(), self.emit)
            if followup is None:
                return "end_turn"
            if isinstance(followup, str):
                prompt = followup
            else:
                finished = followup
        parts = [*(finished if finished is not None else await self._expand(prompt)), *attachments]
        if self.start_context:
            parts.insert(0, context_part(self.start_context))
            self.start_context = ""
        if not await before_agent(self.hooks, parts, self.emit):
            return "end_turn"
        mark = self.history.mark()
        self.history.add_user(parts)
        if self._will_overflow(parts):
            self.history.rollback(mark)
            return "max_tokens"
        if self.before_model is not None:
            await self.before_model()
        return await self._turns.run(text, mark)

    async def _expand(self, prompt: str | Sequence[Part]) -> list[Part]:
        if self.expand_prompt is None:
            return [Part(text=prompt)] if isinstance(prompt, str) else list(prompt)
        items: list[Part] = [Part(text=prompt)] if isinstance(prompt, str) else list(prompt)
        out: list[Part] = []
        for part in items:
            if part.text and "@" in part.text:
                parts, warnings = await self.expand_prompt(part.text)
                for w in warnings:
                    self.emit(ev.Notice("warning", w))
                out.extend(parts)
            else:
                out.append(part)
        return out

    def _will_overflow(self, parts: Sequence[Part]) -> bool:
        limit = self.context_window
        needed = estimate_tokens([Content("user", tuple(parts))])
        remaining = limit - self.last_prompt_tokens
        if needed > remaining:
            self.emit(ev.ContextWindowWillOverflow(needed, remaining))
            return True
        return False

    async def maybe_compress(self, *, force: bool = False) -> ev.ChatCompressed | None:
        """Compress when the last prompt passed the threshold (or when forced, for /compress)."""
        return await self._turns.maybe_compress(force=force)

    def new_call_prefix(self) -> str:
        """A fresh id stem for calls the user (not the model) starts."""
        return uuid.uuid4().hex[:8]

    async def run_user_tools(self, calls: Sequence[ToolCallRequestInfo]) -> dict[str, CallOutcome]:
        """Run calls a command asked for (a custom command's shell snippets) through the same scheduler, policy
        and confirmer as the model's calls; the history is not touched."""
        outcomes: dict[str, CallOutcome] = {}
        scheduler = self._scheduler_factory(self.emit, self.history.contents, self.delivered)
        await scheduler.run(calls, outcomes)
        return outcomes


def derive_title(prompt: str, limit: int = 60) -> str:
    line = " ".join(prompt.strip().split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
