"""The session's hook points: BeforeAgent on a prompt, BeforeModel/AfterModel around each model request,
AfterAgent on the final answer (Gemini CLI's semantics; the shapes live in ``hook_points.py``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from agent_lsp import events as ev
from agent_lsp.core.history import History
from agent_lsp.core.hook_points import (
    HookStopped,
    Streamed,
    after_model,
    apply_request_overrides,
    chunk_from_llm_response,
    context_part,
    llm_request_json,
    notices,
    single,
)
from agent_lsp.core.ports import HookOutcome, Hooks
from agent_lsp.model.base import GenerateRequest, ModelChunk, Part

Emit = Callable[[ev.AgentEvent], None]


def emit_notices(outcome: HookOutcome, emit: Emit) -> None:
    for notice in notices(outcome):
        emit(notice)


async def before_agent(hooks: Hooks | None, parts: list[Part], emit: Emit) -> bool:
    """BeforeAgent hooks see the prompt; False when one blocked it (the user is told). Context they add is
    appended to ``parts``."""
    if hooks is None or not hooks.has("BeforeAgent"):
        return True
    said = "".join(p.text or "" for p in parts if not p.thought)
    outcome = await hooks.fire("BeforeAgent", {"prompt": said})
    emit_notices(outcome, emit)
    if outcome.blocked or outcome.stop:
        why = outcome.stop_reason if outcome.stop else outcome.reason
        emit(ev.Notice("warning", f"The prompt was blocked by a hook: {why}"))
        return False
    if outcome.additional_context:
        parts.append(context_part(outcome.additional_context))
    return True


async def model_stream(
    hooks: Hooks | None,
    request: GenerateRequest,
    stream: Callable[[GenerateRequest], AsyncIterator[Streamed]],
    emit: Emit,
) -> AsyncIterator[Streamed]:
    """The next model response through ``stream``: BeforeModel hooks may change the request, block it (raising
    HookStopped) or answer it themselves; AfterModel hooks see (and may replace) each chunk."""
    if hooks is None:
        return stream(request)
    synthetic: ModelChunk | None = None
    if hooks.has("BeforeModel"):
        outcome = await hooks.fire("BeforeModel", {"llm_request": llm_request_json(request)})
        emit_notices(outcome, emit)
        if outcome.blocked or outcome.stop:
            raise HookStopped(f"The model request was blocked by a hook: {outcome.stop_reason or outcome.reason}")
        if outcome.llm_request:
            request = apply_request_overrides(request, outcome.llm_request)
        if outcome.llm_response:
            synthetic = chunk_from_llm_response(outcome.llm_response)
    chunks = single(synthetic) if synthetic is not None else stream(request)
    return after_model(chunks, hooks, request, emit) if hooks.has("AfterModel") else chunks


async def after_agent(
    hooks: Hooks | None, history: History, emit: Emit, prompt: str, response: str, retried: bool
) -> bool:
    """AfterAgent hooks on the final answer; True when one rejected it and its reason went to the model."""
    if hooks is None or not hooks.has("AfterAgent"):
        return False
    outcome = await hooks.fire(
        "AfterAgent", {"prompt": prompt, "prompt_response": response, "stop_hook_active": retried}
    )
    emit_notices(outcome, emit)
    if outcome.clear_context:
        history.replace(())
    if outcome.stop:
        if outcome.stop_reason:
            emit(ev.Notice("info", f"Stopped by a hook: {outcome.stop_reason}"))
        return False
    if outcome.blocked:
        history.add_user([Part(text=outcome.reason or "Please revise your answer.")])
        return True
    return False
