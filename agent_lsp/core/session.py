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

from agent_lsp import events as ev
from agent_lsp.core.agent_hooks import before_agent
from agent_lsp.core.event_stream import EventStream
from agent_lsp.core.history import History, estimate_tokens
from agent_lsp.core.hook_points import context_part
from agent_lsp.core.message_ids import new_message_id
from agent_lsp.core.ports import EventSink, Hooks, ToolPolicy, ToolSet
from agent_lsp.core.prompt_loop import PromptLoop
from agent_lsp.core.rewind import MessageLog, SessionRewind
from agent_lsp.core.session_state import SessionDeps, SessionState
from agent_lsp.core.steering import Steered, Steering
from agent_lsp.core.tool import ToolCallRequestInfo
from agent_lsp.core.tool_calls import CallOutcome
from agent_lsp.errors import ConfigError, ModelError
from agent_lsp.model.base import Content, ModelClient, Part
from agent_lsp.titles import derive_title

log = logging.getLogger(__name__)


class Session:
    """One conversation: the owner of its state (``SessionState``: history, model, counts), run with the frozen
    dependencies it was built from (``SessionDeps``), and the prompts sent to it."""

    def __init__(
        self,
        deps: SessionDeps,
        state: SessionState,
        *,
        session_id: str | None = None,
        sinks: Sequence[EventSink] = (),
        past_events: Sequence[ev.AgentEvent] = (),
    ) -> None:
        self.id = session_id or uuid.uuid4().hex
        self.deps = deps
        self.state = state
        self._stream = EventStream(sinks)
        self.sinks = self._stream.sinks  # observers of every event (recorder, telemetry); append to add one
        # Bound once: ``emit`` runs for every streamed chunk. ``delivered`` waits until the prompt's consumer has
        # handled every event emitted so far (see EventStream.delivered).
        self.emit: Callable[[ev.AgentEvent], None] = self._stream.emit
        self.delivered: Callable[[], Awaitable[None]] = self._stream.delivered
        # Messages sent into the running turn (``steer``), taken in at its next safe point.
        self.steering = Steering(lambda steered: _take_in(self, steered))
        self._turns = PromptLoop(state, deps, self.emit, self.delivered, self.steering)
        # The user messages (a loaded session's too) and the calls after each: what a rewind goes back over.
        self.messages = MessageLog(past_events)
        self.sinks.append(self.messages)
        # What editors rewind with: targets, preview, rewind, undo (core/rewind.py).
        self.rewinds = SessionRewind(
            state.history, deps.rewinder, self.messages, running=lambda: self.running, record=self._record_rewind
        )

    # --- what others read of the state and the parts -----------------------------------------------------

    @property
    def model(self) -> str:
        return self.state.model

    @property
    def client(self) -> ModelClient:
        return self.state.client

    @property
    def history(self) -> History:
        return self.state.history

    @property
    def usage(self) -> ev.Usage:
        return self.state.usage

    @property
    def session_turns(self) -> int:
        return self.state.session_turns

    @property
    def last_prompt_tokens(self) -> int:
        return self.state.last_prompt_tokens

    @property
    def title(self) -> str | None:
        return self.state.title

    @property
    def registry(self) -> ToolSet:
        return self.deps.registry

    @property
    def policy(self) -> ToolPolicy:
        return self.deps.policy

    @property
    def hooks(self) -> Hooks | None:
        return self.deps.hooks

    @property
    def context_window(self) -> int:
        """Tokens the current model can read."""
        return self.deps.options.token_limit(self.state.model)

    # --- what changes the state from outside a prompt ------------------------------------------------------

    def switch_model(
        self, model: str, client: ModelClient | None = None, *, allow_fallback: bool | None = None
    ) -> None:
        """Answer the next prompts with ``model`` (through ``client``, when the provider changed too); the
        conversation carries on. ``allow_fallback``: whether persistent 429s may move a pro model to flash."""
        state = self.state
        state.model = model
        if client is not None:
            state.client = client
        if allow_fallback is not None:
            state.allow_fallback = allow_fallback

    def allow_one_more_turn(self) -> None:
        """Let the next prompt take one more turn past the session's turn limit (a subagent's last chance)."""
        limit = self.deps.options.max_session_turns
        if limit > 0:
            self.state.session_turns = min(self.state.session_turns, limit - 1)

    def add_start_context(self, text: str) -> None:
        """What SessionStart hooks added; it goes with the next prompt."""
        self.state.start_context = text

    def restore_history(self, contents: Sequence[Content], note: str) -> None:
        """Go back to an earlier conversation (a checkpoint's); a call it left pending is answered with ``note``."""
        self.state.history.replace(contents)
        self.state.history.answer_pending(note)
        self.messages.invalidate()

    def _record_rewind(self, cut: int | None) -> None:
        if self.deps.on_rewind is not None:
            self.deps.on_rewind(cut)
        if self.deps.on_history is not None:
            self.deps.on_history(self.state.history.contents())

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
        self.rewinds.forget()  # a new prompt makes the last rewind final
        return self._stream.run(lambda: self._run(prompt, extra), self._cancelled_early)

    def steer(self, prompt: str | Sequence[Part], *, attachments: Sequence[Part] = ()) -> str | None:
        """Send a message into the running prompt: it joins the conversation at the turn's next safe point (before
        its next model request) and the prompt goes on with it, ending once. Its message id, or None when no
        prompt is running (the caller then sends it as a prompt of its own, or asks the user to)."""
        return self.steering.put(prompt, attachments)

    def _cancelled_early(self) -> list[ev.AgentEvent]:
        return [ev.UserCancelled(), ev.Stop("cancelled", self.state.usage)]

    async def _run(self, prompt: str | Sequence[Part], attachments: tuple[Part, ...]) -> None:
        """The prompt's task: whatever ends it, pending calls are answered, Stop is the last event and the
        history is recorded."""
        stop: ev.StopReason = "end_turn"
        history = self.state.history
        self.state.turn_start = self.deps.meter() if self.deps.meter is not None else None
        self.steering.open = True
        try:
            stop = await self._prompt(prompt, attachments)
            while stop == "end_turn" and self.steering.waiting:
                # Sent while the prompt was ending (a command, a last answer): the turn goes on with it.
                stop = await self._turns.run("", history.mark())
        except asyncio.CancelledError:
            history.answer_pending("Cancelled by the user.")
            self.emit(ev.UserCancelled())
            stop = "cancelled"
            raise
        except (ModelError, ConfigError) as exc:
            history.answer_pending(f"Not run: {exc}")
            self.emit(ev.Error(str(exc), getattr(exc, "status", None), exc.meaning, exc.exit_code))
            stop = "error"
        finally:
            dropped = self.steering.close()
            if dropped:
                self.emit(ev.Notice("warning", f"Not sent (the turn ended first): {dropped[0].text[:200]}"))
            self.emit(ev.Stop(stop, self.state.usage, *self._turns.usage_readings()))
            on_history = self.deps.on_history
            if on_history is not None:
                try:
                    on_history(history.contents())
                except Exception:
                    log.exception("recording history failed")

    async def _prompt(self, prompt: str | Sequence[Part], attachments: tuple[Part, ...] = ()) -> ev.StopReason:
        """The user's input, made ready for the model (or answered by a slash command); then its turns."""
        state, deps = self.state, self.deps
        text = prompt if isinstance(prompt, str) else "".join(p.text or "" for p in prompt if not p.thought)
        self.emit(ev.UserMessage(text, len(state.history), new_message_id()))
        if state.title is None and text.strip():
            state.title = derive_title(text)
            self.emit(ev.SessionTitle(state.title))
        all_text = isinstance(prompt, str) or all(p.text is not None for p in prompt)
        finished: list[Part] | None = None  # a custom command's prompt, already expanded
        if all_text and text.lstrip().startswith("/") and deps.commands is not None:
            followup = await deps.commands(self, text.strip(), self.emit)
            if followup is None:
                return "end_turn"
            if isinstance(followup, str):
                prompt = followup
            else:
                finished = followup
        parts = [*(finished if finished is not None else await self._expand(prompt)), *attachments]
        if state.start_context:
            parts.insert(0, context_part(state.start_context))
            state.start_context = ""
        if not await before_agent(deps.hooks, parts, self.emit):
            return "end_turn"
        mark = state.history.mark()
        state.history.add_user(parts)
        if self._will_overflow(parts):
            state.history.rollback(mark)
            return "max_tokens"
        if deps.before_model is not None:
            await deps.before_model()
        return await self._turns.run(text, mark)

    async def _expand(self, prompt: str | Sequence[Part]) -> list[Part]:
        expand_prompt = self.deps.expand_prompt
        if expand_prompt is None:
            return [Part(text=prompt)] if isinstance(prompt, str) else list(prompt)
        items: list[Part] = [Part(text=prompt)] if isinstance(prompt, str) else list(prompt)
        out: list[Part] = []
        for part in items:
            if part.text and "@" in part.text:
                parts, warnings = await expand_prompt(part.text)
                for w in warnings:
                    self.emit(ev.Notice("warning", w))
                out.extend(parts)
            else:
                out.append(part)
        return out

    def _will_overflow(self, parts: Sequence[Part]) -> bool:
        limit = self.context_window
        needed = estimate_tokens([Content("user", tuple(parts))])
        remaining = limit - self.state.last_prompt_tokens
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
        scheduler = self.deps.scheduler_factory(self.emit, self.state.history.contents, self.delivered)
        await scheduler.run(calls, outcomes)
        return outcomes


async def _take_in(session: Session, steered: Steered) -> None:
    """A steered message joins the conversation, at the running turn's safe point."""
    history = session.state.history
    parts = [*await session._expand(steered.prompt), *steered.attachments]
    # Right behind a tool batch the message joins the same user turn as the answers (the history merges them):
    # then there is no place in the history where only it begins, and it cannot be rewound to.
    index = -1 if history.last_role() == "user" else len(history)
    session.emit(ev.UserMessage(steered.text, index, steered.message_id, steered=True))
    history.add_user(parts)
