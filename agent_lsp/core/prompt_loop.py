"""The turns of one prompt: model responses streamed as events, retried when unusable, tool batches answered,
loops and hooks stopping it, the history compressed when it grows, tokens counted."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Literal

from agent_lsp import events as ev
from agent_lsp.core.agent_hooks import after_agent, emit_notices, model_stream
from agent_lsp.core.compression import CompressionFailed, compress
from agent_lsp.core.context_usage import context_usage
from agent_lsp.core.hook_points import HookStopped, Streamed
from agent_lsp.core.loop_detection import LoopDetector
from agent_lsp.core.message_ids import new_message_id
from agent_lsp.core.retry import generate_with_retry, stream_with_retry
from agent_lsp.core.session_state import SessionDeps, SessionState
from agent_lsp.core.steering import Steering
from agent_lsp.core.tool_calls import CallOutcome, function_responses
from agent_lsp.core.turn import TurnResult, run_turn
from agent_lsp.errors import ModelError
from agent_lsp.model.base import GenerateRequest, ModelChunk, Part
from agent_lsp.model.catalog import generation_settings, resolve_model

MAX_TURNS_PER_PROMPT = 100
# Invalid responses (empty, no finish reason, malformed call) are asked for once more before giving up.
INVALID_STREAM_RETRIES = 1


class PromptLoop:
    """Runs a prompt already in the session's history until the model stops asking for tools (or something stops
    it). Handed the session's state (which it updates: history, model on a fallback, turn and token counts), its
    frozen dependencies and its stream's ``emit``/``delivered``, never the Session itself. Reads the state's model
    and client at each request, so a model switched between prompts takes effect."""

    def __init__(
        self,
        state: SessionState,
        deps: SessionDeps,
        emit: Callable[[ev.AgentEvent], None],
        delivered: Callable[[], Awaitable[None]],
        steering: Steering | None = None,
    ) -> None:
        self.state = state
        self.deps = deps
        self.emit = emit
        self.delivered = delivered
        self.steering = steering  # messages sent into the running turn, taken in before each model request
        self._loops = LoopDetector(deps.options.loop_detection)

    async def run(self, prompt: str, mark: int) -> ev.StopReason:
        """``prompt`` is the user's text (AfterAgent hooks see it); ``mark`` is the history before it, restored
        when the model never answered, so the user can simply send the prompt again."""
        state, emit = self.state, self.emit
        self._loops.reset()
        answered_once = False
        invalid_retries = 0
        retried_by_hook = False
        steering = self.steering
        for _ in range(MAX_TURNS_PER_PROMPT):
            if steering is not None:
                await steering.take_in()  # the safe point: after the last response or tool batch, before the next
            state.session_turns += 1
            limit = self.deps.options.max_session_turns
            if limit > 0 and state.session_turns > limit:
                emit(ev.MaxSessionTurns(limit))
                return "max_turn_requests"
            await self.maybe_compress()
            result = TurnResult()
            try:
                if await self._stream(result):
                    return "end_turn"  # a loop was detected
            except ModelError:
                if not answered_once:
                    state.history.rollback(mark)
                raise
            except HookStopped as exc:
                emit(ev.Notice("warning", str(exc)))
                if not answered_once:
                    state.history.rollback(mark)
                return "end_turn"
            if result.fallback_model:
                state.model = result.fallback_model
            self._account(result)
            invalid = result.invalid_reason()
            if invalid is not None:
                if invalid.reason != "safety" and invalid_retries < INVALID_STREAM_RETRIES:
                    invalid_retries += 1
                    emit(ev.Retry(invalid_retries, f"invalid response: {invalid.detail}", 0.0))
                    continue
                emit(invalid)
                if invalid.reason == "safety":
                    return "refusal"
                if not answered_once:
                    state.history.rollback(mark)
                return "end_turn"
            answered_once = True
            state.history.add_model(result.model_parts)
            if not result.calls:
                if steering is not None and steering.waiting and result.finish_reason != "MAX_TOKENS":
                    continue  # a message came in while the model answered: the turn goes on with it
                if result.finish_reason != "MAX_TOKENS" and await after_agent(
                    self.deps.hooks, state.history, emit, prompt, result.text, retried_by_hook
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
        emit = self.emit  # once per streamed chunk: no attribute walks in the loop
        check = self._loops.check
        stream = await model_stream(self.deps.hooks, self._request(), self._open, emit)
        events = run_turn(stream, result)
        try:
            async for event in events:
                emit(event)
                loop = check(event)
                if loop is not None:
                    emit(loop)
                    if text := result.text:
                        self.state.history.add_model([Part(text=text)])
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
        state = self.state
        return stream_with_retry(state.client, request, self.deps.options.retry, allow_fallback=state.allow_fallback)

    async def _run_calls(self, result: TurnResult) -> ev.StopReason | None:
        """Hand the response's tool calls to a scheduler and answer every one of them in the history; a stop
        reason when the prompt ends here (a loop, the user's Stop at a confirmation, a hook)."""
        history, emit = self.state.history, self.emit
        for call in result.calls:
            loop = self._loops.check(ev.ToolCallRequest(ev.ToolCallInfo(call.call_id, call.name, call.args, "")))
            if loop is not None:
                emit(loop)
                history.answer_pending("Not run: the same call was repeated too many times.")
                return "end_turn"
        outcomes: dict[str, CallOutcome] = {}
        scheduler = self.deps.scheduler_factory(emit, history.contents, self.delivered)
        try:
            await scheduler.run(result.calls, outcomes)
        finally:
            # Every call of the turn is answered, in the model's order, whatever happened to it.
            history.add_user(function_responses(result.calls, result.model_ids, outcomes))
        if any(o.declined for o in outcomes.values()):
            # Cancel at a confirmation is the user's Stop: the model is not asked again.
            emit(ev.UserCancelled())
            return "cancelled"
        stopped = next((o.stopped for o in outcomes.values() if o.stopped is not None), None)
        if stopped is not None:
            emit(ev.Notice("warning", f"Agent execution stopped by a hook: {stopped}"))
            return "end_turn"
        return None

    def _request(self) -> GenerateRequest:
        deps = self.deps
        registry, policy = deps.registry, deps.policy
        tools = tuple(d for d in registry.declarations() if policy.is_enabled(d.name, registry.get(d.name)))
        model = resolve_model(self.state.model)
        gen = generation_settings(model)
        return GenerateRequest(
            model=model,
            contents=self.state.history.contents(),
            system_instruction=deps.system_prompt(),
            tools=tools,
            temperature=gen.temperature,
            top_p=gen.top_p,
            top_k=gen.top_k,
            thinking_budget=gen.thinking_budget,
            thinking_level=gen.thinking_level,
        )

    def usage_readings(self) -> tuple[ev.UsageTotals | None, ev.UsageTotals | None]:
        """(the whole session's model calls, the running prompt's), from the session's meter."""
        meter, start = self.deps.meter, self.state.turn_start
        if meter is None:
            return None, None
        now = meter()
        return now, (now.since(start) if start is not None else None)

    def _account(self, result: TurnResult) -> None:
        state = self.state
        usage = result.usage
        session_usage, turn_usage = self.usage_readings()
        cost = session_usage.cost if session_usage is not None else None
        self.emit(ev.Finished(result.finish_reason, usage, cost, session_usage, turn_usage))
        if usage is None:
            return
        if usage.prompt_tokens:
            state.last_prompt_tokens = usage.prompt_tokens
            # The history is still the request's (the answer is added after): the rest was the fixed part.
            state.fixed_tokens = max(0, usage.prompt_tokens - state.history.estimate())
        state.usage = state.usage + usage

    async def maybe_compress(self, *, force: bool = False) -> ev.ChatCompressed | None:
        """Compress when the last prompt passed the threshold (or when forced, for /compress)."""
        state, options, hooks = self.state, self.deps.options, self.deps.hooks
        threshold = options.compression_threshold * options.token_limit(state.model)
        if not force and state.last_prompt_tokens < threshold:
            return None
        original = state.last_prompt_tokens or state.history.estimate()
        trigger: Literal["manual", "auto"] = "manual" if force else "auto"
        if hooks is not None and hooks.has("PreCompress", trigger):
            # Advisory: a hook may save state or tell the user, never stop the compression.
            emit_notices(await hooks.fire("PreCompress", {"trigger": trigger}, trigger), self.emit)
        client = state.client

        async def generate(request: GenerateRequest) -> ModelChunk:
            return await generate_with_retry(client, request, options.retry)

        compaction = ev.Compaction(new_message_id(), "in_progress", trigger, tokens_before=original)
        started: list[bool] = []

        def start() -> None:
            started.append(True)
            self.emit(compaction)

        try:
            result = await compress(
                # Resolved as the main loop's requests are: "auto" is not a model the API knows.
                state.history.contents(),
                model=resolve_model(state.model),
                original_tokens=original,
                generate=generate,
                on_start=start,
            )
        except (ModelError, CompressionFailed) as exc:
            if started:
                self.emit(replace(compaction, status="failed", error=f"Could not compress the conversation: {exc}"))
            return None
        except asyncio.CancelledError:
            if started:  # every compaction that began ends, for whoever draws it
                self.emit(replace(compaction, status="failed", error="Cancelled."))
            raise
        if result is None:
            return None
        state.history.replace(result.contents)
        state.last_prompt_tokens = result.new_tokens
        self.emit(replace(compaction, status="completed", summary=result.summary, tokens_after=result.new_tokens))
        event = ev.ChatCompressed(result.original_tokens, result.new_tokens, compaction.compaction_id)
        self.emit(event)
        self.emit(context_usage(state, self.deps))  # the smaller context, before the next request (if any) measures it
        return event
