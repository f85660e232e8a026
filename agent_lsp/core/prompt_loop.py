"""The turns of one prompt: model responses streamed as events, retried when unusable, tool batches answered,
loops and hooks stopping it, the history compressed when it grows, tokens counted."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from agent_lsp import events as ev
from agent_lsp.core.agent_hooks import after_agent, emit_notices, model_stream
from agent_lsp.core.compression import compress
from agent_lsp.core.history import estimate_tokens
from agent_lsp.core.hook_points import HookStopped, Streamed
from agent_lsp.core.loop_detection import LoopDetector
from agent_lsp.core.retry import generate_with_retry, stream_with_retry
from agent_lsp.core.session_parts import SchedulerFactory
from agent_lsp.core.tool_calls import CallOutcome, function_responses
from agent_lsp.core.turn import TurnResult, run_turn
from agent_lsp.errors import ModelError
from agent_lsp.model.base import GenerateRequest, ModelChunk, Part
from agent_lsp.model.catalog import generation_settings, resolve_model

if TYPE_CHECKING:
    from agent_lsp.core.session import Session

MAX_TURNS_PER_PROMPT = 100
# Invalid responses (empty, no finish reason, malformed call) are asked for once more before giving up.
INVALID_STREAM_RETRIES = 1


class PromptLoop:
    """Runs a prompt already in the session's history until the model stops asking for tools (or something stops
    it). Reads the session's parts as they are at each request, so a model or client switched between prompts
    takes effect; keeps the session's turn and token counts."""

    def __init__(self, session: Session, scheduler_factory: SchedulerFactory) -> None:
        self.session = session
        self._scheduler_factory = scheduler_factory
        self._loops = LoopDetector(session.options.loop_detection)

    async def run(self, prompt: str, mark: int) -> ev.StopReason:
        """``prompt`` is the user's text (AfterAgent hooks see it); ``mark`` is the history before it, restored
        when the model never answered, so the user can simply send the prompt again."""
        s = self.session
        self._loops.reset()
        answered_once = False
        invalid_retries = 0
        retried_by_hook = False
        for _ in range(MAX_TURNS_PER_PROMPT):
            s.session_turns += 1
            limit = s.options.max_session_turns
            if limit > 0 and s.session_turns > limit:
                s.emit(ev.MaxSessionTurns(limit))
                return "max_turn_requests"
            await self.maybe_compress()
            result = TurnResult()
            try:
                if await self._stream(result):
                    return "end_turn"  # a loop was detected
            except ModelError:
                if not answered_once:
                    s.history.rollback(mark)
                raise
            except HookStopped as exc:
                s.emit(ev.Notice("warning", str(exc)))
                if not answered_once:
                    s.history.rollback(mark)
                return "end_turn"
            if result.fallback_model:
                s.model = result.fallback_model
            self._account(result)
            invalid = result.invalid_reason()
            if invalid is not None:
                if invalid.reason != "safety" and invalid_retries < INVALID_STREAM_RETRIES:
                    invalid_retries += 1
                    s.emit(ev.Retry(invalid_retries, f"invalid response: {invalid.detail}", 0.0))
                    continue
                s.emit(invalid)
                if invalid.reason == "safety":
                    return "refusal"
                if not answered_once:
                    s.history.rollback(mark)
                return "end_turn"
            answered_once = True
            s.history.add_model(result.model_parts)
            if not result.calls:
                if result.finish_reason != "MAX_TOKENS" and await after_agent(
                    s.hooks, s.history, s.emit, prompt, result.text, retried_by_hook
                ):
                    retried_by_hook = True
                    continue
                return "max_tokens" if result.finish_reason == "MAX_TOKENS" else "end_turn"
            stop = await self._run_calls(result)
            if stop is not None:
                return stop
        return "max_turn_requests"

    async def _stream(self, result: TurnResult) -> bool:
        """Stream one model response as events into ``result``; True when it started looping (and was cut)."""
        s = self.session
        emit = s.emit  # once per streamed chunk: no attribute walks in the loop
        check = self._loops.check
        stream = await model_stream(s.hooks, self._request(), self._open, emit)
        events = run_turn(stream, result)
        try:
            async for event in events:
                emit(event)
                loop = check(event)
                if loop is not None:
                    emit(loop)
                    if text := result.text:
                        s.history.add_model([Part(text=text)])
                    return True
            return False
        finally:
            # A stream cut short (a loop) is closed here, innermost last, so the HTTP response is released now
            # and in order; left to the garbage collector, each generator was closed by its own task, racing
            # the others ("aclose(): asynchronous generator is already running"), and the connection was lost.
            await events.aclose()
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()

    def _open(self, request: GenerateRequest) -> AsyncIterator[Streamed]:
        options = self.session.options
        return stream_with_retry(self.session.client, request, options.retry, allow_fallback=options.allow_fallback)

    async def _run_calls(self, result: TurnResult) -> ev.StopReason | None:
        """Hand the response's tool calls to a scheduler and answer every one of them in the history; a stop
        reason when the prompt ends here (a loop, the user's Stop at a confirmation, a hook)."""
        s = self.session
        for call in result.calls:
            loop = self._loops.check(ev.ToolCallRequest(ev.ToolCallInfo(call.call_id, call.name, call.args, "")))
            if loop is not None:
                s.emit(loop)
                s.history.answer_pending("Not run: the same call was repeated too many times.")
                return "end_turn"
        outcomes: dict[str, CallOutcome] = {}
        scheduler = self._scheduler_factory(s.emit, s.history.contents, s.delivered)
        try:
            await scheduler.run(result.calls, outcomes)
        finally:
            # Every call of the turn is answered, in the model's order, whatever happened to it.
            s.history.add_user(function_responses(result.calls, result.model_ids, outcomes))
        if any(o.declined for o in outcomes.values()):
            # Cancel at a confirmation is the user's Stop: the model is not asked again.
            s.emit(ev.UserCancelled())
            return "cancelled"
        stopped = next((o.stopped for o in outcomes.values() if o.stopped is not None), None)
        if stopped is not None:
            s.emit(ev.Notice("warning", f"Agent execution stopped by a hook: {stopped}"))
            return "end_turn"
        return None

    def _request(self) -> GenerateRequest:
        s = self.session
        tools = tuple(d for d in s.registry.declarations() if s.policy.is_enabled(d.name, s.registry.get(d.name)))
        model = resolve_model(s.model)
        gen = generation_settings(model)
        return GenerateRequest(
            model=model,
            contents=s.history.contents(),
            system_instruction=s.system_prompt(),
            tools=tools,
            temperature=gen.temperature,
            top_p=gen.top_p,
            top_k=gen.top_k,
            thinking_budget=gen.thinking_budget,
            thinking_level=gen.thinking_level,
        )

    def _account(self, result: TurnResult) -> None:
        s = self.session
        usage = result.usage
        s.emit(ev.Finished(result.finish_reason, usage))
        if usage is None:
            return
        if usage.prompt_tokens:
            s.last_prompt_tokens = usage.prompt_tokens
        s.usage = s.usage + usage

    async def maybe_compress(self, *, force: bool = False) -> ev.ChatCompressed | None:
        """Compress when the last prompt passed the threshold (or when forced, for /compress)."""
        s = self.session
        threshold = s.options.compression_threshold * s.context_window
        if not force and s.last_prompt_tokens < threshold:
            return None
        original = s.last_prompt_tokens or estimate_tokens(s.history.contents())
        trigger = "manual" if force else "auto"
        if s.hooks is not None and s.hooks.has("PreCompress", trigger):
            # Advisory: a hook may save state or tell the user, never stop the compression.
            emit_notices(await s.hooks.fire("PreCompress", {"trigger": trigger}, trigger), s.emit)

        async def generate(request: GenerateRequest) -> ModelChunk:
            return await generate_with_retry(s.client, request, s.options.retry)

        try:
            result = await compress(s.history.contents(), model=s.model, original_tokens=original, generate=generate)
        except ModelError as exc:
            s.emit(ev.Notice("warning", f"Could not compress the conversation: {exc}"))
            return None
        if result is None:
            return None
        s.history.replace(result.contents)
        s.last_prompt_tokens = result.new_tokens
        event = ev.ChatCompressed(result.original_tokens, result.new_tokens)
        s.emit(event)
        return event
