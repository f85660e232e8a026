"""Where the loop meets the hooks: Gemini CLI's stable request/response shapes and the model-stream wrapper."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import replace
from typing import Any

from agent_lsp import events as ev
from agent_lsp.core.ports import HookOutcome, Hooks
from agent_lsp.model.base import GenerateRequest, ModelChunk, Part

Streamed = ModelChunk | ev.Retry | ev.ModelFallback


class HookStopped(Exception):
    """A hook blocked or stopped the turn; the message is for the user."""


def context_part(text: str) -> Part:
    """Context a hook added, marked so the model can tell it from what the user typed."""
    return Part(text=f"<hook_context>{text}</hook_context>")


def notices(outcome: HookOutcome) -> list[ev.Notice]:
    return [ev.Notice(level, message) for level, message in outcome.notices]


def llm_request_json(request: GenerateRequest) -> dict[str, Any]:
    """Gemini CLI's LLMRequest: model, text-only messages (system first), config."""
    messages: list[dict[str, str]] = []
    if request.system_instruction:
        messages.append({"role": "system", "content": request.system_instruction})
    for content in request.contents:
        text = "".join(p.text for p in content.parts if p.text and not p.thought)
        if text:
            messages.append({"role": content.role, "content": text})
    config: dict[str, Any] = {}
    if request.temperature is not None:
        config["temperature"] = request.temperature
    return {"model": request.model, "messages": messages, "config": config}


def llm_response_json(chunk: ModelChunk) -> dict[str, Any]:
    """Gemini CLI's LLMResponse for one chunk: its text parts as strings."""
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [p.text for p in chunk.parts if p.text]}}
    if chunk.finish_reason:
        candidate["finishReason"] = chunk.finish_reason
    out: dict[str, Any] = {"candidates": [candidate]}
    if chunk.usage is not None:
        out["usageMetadata"] = {"totalTokenCount": chunk.usage.total_tokens}
    return out


def chunk_from_llm_response(data: Mapping[str, Any], like: ModelChunk | None = None) -> ModelChunk:
    """A hook's LLMResponse as a chunk: its text replaces the text parts; function calls and the finish
    reason and usage of the chunk it replaces are kept (a synthetic answer with no finish reason ends now)."""
    texts: list[str] = []
    finish = like.finish_reason if like is not None else "STOP"
    candidates = data.get("candidates")
    if isinstance(candidates, list) and candidates and isinstance(candidates[0], dict):
        content = candidates[0].get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
        if isinstance(candidates[0].get("finishReason"), str):
            finish = candidates[0]["finishReason"]
    old = like.parts if like is not None else ()
    thoughts = tuple(p for p in old if p.thought)
    calls = tuple(p for p in old if p.text is None)
    new_parts = (*thoughts, *(Part(text=t) for t in texts), *calls)
    if like is None:
        return ModelChunk(parts=new_parts, finish_reason=finish)
    return replace(like, parts=new_parts, finish_reason=finish)


def apply_request_overrides(request: GenerateRequest, overrides: Mapping[str, Any]) -> GenerateRequest:
    """The parts of a BeforeModel answer's llm_request agent-lsp honours: the model and the temperature."""
    model = overrides.get("model")
    config = overrides.get("config")
    temperature = config.get("temperature") if isinstance(config, dict) else None
    return replace(
        request,
        model=model if isinstance(model, str) and model else request.model,
        temperature=float(temperature) if isinstance(temperature, int | float) else request.temperature,
    )


async def after_model(
    stream: AsyncIterator[Streamed],
    hooks: Hooks,
    request: GenerateRequest,
    emit: Callable[[ev.AgentEvent], None],
) -> AsyncIterator[Streamed]:
    """Each chunk goes past the AfterModel hooks, which may replace it or stop the turn."""
    shown = llm_request_json(request)
    async for item in stream:
        if not isinstance(item, ModelChunk):
            yield item
            continue
        outcome = await hooks.fire("AfterModel", {"llm_request": shown, "llm_response": llm_response_json(item)})
        for notice in notices(outcome):
            emit(notice)
        if outcome.blocked or outcome.stop:
            raise HookStopped(f"The model's answer was blocked by a hook: {outcome.stop_reason or outcome.reason}")
        yield chunk_from_llm_response(outcome.llm_response, item) if outcome.llm_response else item


async def single(chunk: ModelChunk) -> AsyncIterator[Streamed]:
    yield chunk
