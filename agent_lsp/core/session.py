"""A Session: history plus the multi-turn loop. ``send`` yields one typed event stream, ending with Stop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path

from agent_lsp import events as ev
from agent_lsp.core.agent_hooks import after_agent, before_agent, emit_notices, model_stream
from agent_lsp.core.compression import compress
from agent_lsp.core.history import History, estimate_tokens
from agent_lsp.core.hook_points import HookStopped, Streamed, context_part
from agent_lsp.core.loop_detection import LoopDetector
from agent_lsp.core.ports import EventSink, Hooks, ToolPolicy, ToolSet
from agent_lsp.core.retry import generate_with_retry, stream_with_retry
from agent_lsp.core.session_parts import CommandRunner, PromptExpander, SchedulerFactory
from agent_lsp.core.session_parts import SessionOptions as SessionOptions  # built by the runtime from here
from agent_lsp.core.tool import ToolCallRequestInfo
from agent_lsp.core.tool_calls import CallOutcome, function_responses
from agent_lsp.core.turn import TurnResult, run_turn
from agent_lsp.errors import ConfigError, ModelError
from agent_lsp.model.base import Content, GenerateRequest, ModelChunk, ModelClient, Part
from agent_lsp.model.catalog import generation_settings, resolve_model

log = logging.getLogger(__name__)
MAX_TURNS_PER_PROMPT = 100
# Invalid responses (empty, no finish reason, malformed call) are asked for once more before giving up.
INVALID_STREAM_RETRIES = 1


class Session:
    """One conversation: its history, the multi-turn loop of a prompt, and the event stream it yields."""

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
        self.sinks = list(sinks)
        self.expand_prompt = expand_prompt
        self.commands = commands
        self.on_history = on_history
        self.roots = list(roots)
        self.hooks = hooks
        self.start_context = ""  # what SessionStart hooks added: it goes with the first prompt
        self._scheduler_factory = scheduler_factory
        self._loop = LoopDetector(options.loop_detection)
        self._task: asyncio.Task[None] | None = None
        self._queue: asyncio.Queue[ev.AgentEvent | None] | None = None
        self.session_turns = 0
        self.last_prompt_tokens = 0
        self.usage = ev.Usage()
        self.title: str | None = None
        # Awaited before a prompt's first model request (the runtime waits here for tools still starting).
        self.before_model = before_model

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
        return self._task is not None and not self._task.done()

    def cancel(self) -> None:
        """Cancel the running prompt; its stream ends with UserCancelled and Stop("cancelled")."""
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def send(
        self, prompt: str | Sequence[Part], *, attachments: Sequence[Part] = ()
    ) -> AsyncIterator[ev.AgentEvent]:
        """Run one prompt to the end. Every event is also given to the session's sinks.

        ``prompt`` is what the user typed (its ``@path`` mentions are read); ``attachments`` are contents the
        editor attached (files, resources), sent after it and never scanned for mentions."""
        if self.running:
            raise RuntimeError("a prompt is already running in this session")
        queue: asyncio.Queue[ev.AgentEvent | None] = asyncio.Queue()
        self._queue = queue
        started: list[bool] = []  # this prompt's own flag: a done-callback may run after the next prompt began
        task = asyncio.create_task(self._run(prompt, tuple(attachments), started))
        task.add_done_callback(lambda _t: self._finish_unstarted(queue, started))
        self._task = task
        try:
            while (item := await queue.get()) is not None:
                yield item
                # The consumer asked for the next event, so it has handled this one (see ``delivered``).
                queue.task_done()
            queue.task_done()
        finally:
            if not task.done():
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            self._task = None

    def _finish_unstarted(self, queue: asyncio.Queue[ev.AgentEvent | None], started: list[bool]) -> None:
        """A task cancelled before its first step never runs ``_run``'s cleanup: end its stream here."""
        if started:
            return
        for event in (ev.UserCancelled(), ev.Stop("cancelled", self.usage)):
            queue.put_nowait(event)
            for sink in self.sinks:
                sink(event)
        queue.put_nowait(None)

    async def delivered(self) -> None:
        """Wait until the prompt's consumer has handled every event emitted so far.

        Whatever talks to the user outside the stream (a permission request) awaits this first, so the
        tool call and the text the model wrote before it reach the editor before the question does."""
        if self._queue is not None:
            await self._queue.join()

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

    def emit(self, event: ev.AgentEvent) -> None:
        if self._queue is not None:
            self._queue.put_nowait(event)
        for sink in self.sinks:
            try:
                sink(event)
            except Exception:  # an observer must never break the conversation
                log.exception("event sink failed")

    async def _run(self, prompt: str | Sequence[Part], attachments: tuple[Part, ...], started: list[bool]) -> None:
        started.append(True)
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
            self.emit(ev.Error(str(exc), getattr(exc, "status", None)))
            stop = "error"
        finally:
            self.emit(ev.Stop(stop, self.usage))
            if self.on_history is not None:
                try:
                    self.on_history(self.history.contents())
                except Exception:
                    log.exception("recording history failed")
            if self._queue is not None:
                self._queue.put_nowait(None)

    async def _prompt(self, prompt: str | Sequence[Part], attachments: tuple[Part, ...] = ()) -> ev.StopReason:
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
        self._loop.reset()
        if self._will_overflow(parts):
            self.history.rollback(mark)
            return "max_tokens"
        answered_once = False
        invalid_retries = 0
        if self.before_model is not None:
            await self.before_model()

        retried_by_hook = False
        for _ in range(MAX_TURNS_PER_PROMPT):
            self.session_turns += 1
            limit = self.options.max_session_turns
            if limit > 0 and self.session_turns > limit:
                self.emit(ev.MaxSessionTurns(limit))
                return "max_turn_requests"
            await self.maybe_compress()
            result = TurnResult()
            try:
                stream = await self._model_stream()
                async for event in run_turn(stream, result):
                    self.emit(event)
                    loop = self._loop.check(event)
                    if loop is not None:
                        self.emit(loop)
                        self._keep_text_only(result)
                        return "end_turn"
            except ModelError:
                if not answered_once:
                    self.history.rollback(mark)  # the user can simply send the prompt again
                raise
            except HookStopped as exc:
                self.emit(ev.Notice("warning", str(exc)))
                if not answered_once:
                    self.history.rollback(mark)
                return "end_turn"
            if result.fallback_model:
                self.model = result.fallback_model
            self._account(result)
            invalid = result.invalid_reason()
            if invalid is not None:
                if invalid.reason != "safety" and invalid_retries < INVALID_STREAM_RETRIES:
                    invalid_retries += 1
                    self.emit(ev.Retry(invalid_retries, f"invalid response: {invalid.detail}", 0.0))
                    continue
                self.emit(invalid)
                if invalid.reason == "safety":
                    return "refusal"
                if not answered_once:
                    self.history.rollback(mark)
                return "end_turn"
            answered_once = True
            self.history.add_model(result.model_parts)
            if not result.calls:
                if result.finish_reason != "MAX_TOKENS" and await after_agent(
                    self.hooks, self.history, self.emit, text, result.text, retried_by_hook
                ):
                    retried_by_hook = True
                    continue
                return "max_tokens" if result.finish_reason == "MAX_TOKENS" else "end_turn"
            for call in result.calls:
                loop = self._loop.check(ev.ToolCallRequest(ev.ToolCallInfo(call.call_id, call.name, call.args, "")))
                if loop is not None:
                    self.emit(loop)
                    self.history.answer_pending("Not run: the same call was repeated too many times.")
                    return "end_turn"
            outcomes: dict[str, CallOutcome] = {}
            scheduler = self._scheduler_factory(self.emit, self.history.contents, self.delivered)
            try:
                await scheduler.run(result.calls, outcomes)
            finally:
                # Every call of the turn is answered, in the model's order, whatever happened to it.
                self.history.add_user(function_responses(result.calls, result.model_ids, outcomes))
            if any(o.declined for o in outcomes.values()):
                # Cancel at a confirmation is the user's Stop: the model is not asked again.
                self.emit(ev.UserCancelled())
                return "cancelled"
            stopped = next((o.stopped for o in outcomes.values() if o.stopped is not None), None)
            if stopped is not None:
                self.emit(ev.Notice("warning", f"Agent execution stopped by a hook: {stopped}"))
                return "end_turn"
        return "max_turn_requests"

    async def _model_stream(self) -> AsyncIterator[Streamed]:
        def stream(request: GenerateRequest) -> AsyncIterator[Streamed]:
            options = self.options
            return stream_with_retry(self.client, request, options.retry, allow_fallback=options.allow_fallback)

        return await model_stream(self.hooks, self._request(), stream, self.emit)

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

    def _request(self) -> GenerateRequest:
        tools = tuple(
            d for d in self.registry.declarations() if self.policy.is_enabled(d.name, self.registry.get(d.name))
        )
        model = resolve_model(self.model)
        gen = generation_settings(model)
        return GenerateRequest(
            model=model,
            contents=self.history.contents(),
            system_instruction=self.system_prompt(),
            tools=tools,
            temperature=gen.temperature,
            top_p=gen.top_p,
            top_k=gen.top_k,
            thinking_budget=gen.thinking_budget,
            thinking_level=gen.thinking_level,
        )

    def _account(self, result: TurnResult) -> None:
        usage = result.usage
        self.emit(ev.Finished(result.finish_reason, usage))
        if usage is None:
            return
        if usage.prompt_tokens:
            self.last_prompt_tokens = usage.prompt_tokens
        self.usage = self.usage + usage

    def _keep_text_only(self, result: TurnResult) -> None:
        text = result.text
        if text:
            self.history.add_model([Part(text=text)])

    async def maybe_compress(self, *, force: bool = False) -> ev.ChatCompressed | None:
        """Compress when the last prompt passed the threshold (or when forced, for /compress)."""
        threshold = self.options.compression_threshold * self.context_window
        if not force and self.last_prompt_tokens < threshold:
            return None
        original = self.last_prompt_tokens or estimate_tokens(self.history.contents())
        trigger = "manual" if force else "auto"
        if self.hooks is not None and self.hooks.has("PreCompress", trigger):
            # Advisory: a hook may save state or tell the user, never stop the compression.
            emit_notices(await self.hooks.fire("PreCompress", {"trigger": trigger}, trigger), self.emit)

        async def generate(request: GenerateRequest) -> ModelChunk:
            return await generate_with_retry(self.client, request, self.options.retry)

        try:
            result = await compress(
                self.history.contents(), model=self.model, original_tokens=original, generate=generate
            )
        except ModelError as exc:
            self.emit(ev.Notice("warning", f"Could not compress the conversation: {exc}"))
            return None
        if result is None:
            return None
        self.history.replace(result.contents)
        self.last_prompt_tokens = result.new_tokens
        event = ev.ChatCompressed(result.original_tokens, result.new_tokens)
        self.emit(event)
        return event


def derive_title(prompt: str, limit: int = 60) -> str:
    line = " ".join(prompt.strip().split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
