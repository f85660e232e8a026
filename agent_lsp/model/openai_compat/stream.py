"""Chat Completions chunks (or a whole completion) as ModelChunks: tool calls across chunks, reasoning, usage."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from agent_lsp.events import Usage
from agent_lsp.model.base import FunctionCall, ModelChunk, Part
from agent_lsp.model.openai_compat.think import ThinkSplitter

log = logging.getLogger(__name__)

# OpenAI finish reasons → the Gemini names the core reads.
FINISH_REASONS = {
    "stop": "STOP",
    "tool_calls": "STOP",
    "function_call": "STOP",
    "length": "MAX_TOKENS",
    "content_filter": "SAFETY",
}


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: str = ""


class StreamAssembler:
    """Turns ChatCompletionChunks into ModelChunks: text and reasoning as they come, tool calls whole at the end.

    Tool calls arrive as fragments keyed by ``index`` (id and name usually first, then argument pieces) and
    are only complete once the stream finishes, so they go out in the last chunk with the finish reason and
    the usage (which ``stream_options.include_usage`` puts in a final chunk without choices)."""

    def __init__(self) -> None:
        self.calls: dict[int, _PartialCall] = {}
        self.finish_reason: str | None = None
        self.usage: Usage | None = None
        self.model: str | None = None
        self.think = ThinkSplitter()

    def feed(self, raw: Any) -> list[ModelChunk]:
        out: list[ModelChunk] = []
        usage = getattr(raw, "usage", None)
        if usage is not None:
            self.usage = usage_of(usage)
        self.model = getattr(raw, "model", None) or self.model
        for choice in getattr(raw, "choices", None) or []:
            if getattr(choice, "index", 0) not in (0, None):
                continue  # n > 1 is never asked for
            delta = getattr(choice, "delta", None)
            if delta is not None:
                reasoning = _extra(delta, "reasoning_content") or _extra(delta, "reasoning")
                if isinstance(reasoning, str) and reasoning:
                    out.append(ModelChunk(parts=(Part(text=reasoning, thought=True),)))
                text = getattr(delta, "content", None)
                if isinstance(text, str) and text:
                    out += [ModelChunk(parts=(part,)) for part in self.think.feed(text)]
                for fragment in getattr(delta, "tool_calls", None) or []:
                    self._add_fragment(fragment)
            reason = getattr(choice, "finish_reason", None)
            if reason:
                self.finish_reason = reason
        return out

    def _add_fragment(self, fragment: Any) -> None:
        index = getattr(fragment, "index", None)
        if not isinstance(index, int):
            index = len(self.calls)
        call = self.calls.setdefault(index, _PartialCall())
        if getattr(fragment, "id", None):
            call.id = fragment.id
        function = getattr(fragment, "function", None)
        if function is None:
            return
        name = getattr(function, "name", None)
        if name:
            # Most servers send the name once; some repeat it whole in every fragment; a few split it.
            call.name = name if not call.name or call.name == name else call.name + name
        arguments = getattr(function, "arguments", None)
        if arguments:
            call.arguments += arguments

    def finish(self) -> ModelChunk:
        """The closing chunk: assembled calls, the finish reason in Gemini's terms, the usage."""
        parts: list[Part] = self.think.flush()
        malformed = False
        for index in sorted(self.calls):
            call = self.calls[index]
            args = _parse_args(call.arguments)
            if args is None or not call.name:
                malformed = True
                log.info(
                    "the model sent a tool call that does not parse (%s, %d characters)",
                    call.name or "?",
                    len(call.arguments),
                )
                continue
            parts.append(Part(function_call=FunctionCall(name=call.name, args=args, id=call.id or None)))
        reason = self.finish_reason
        mapped = "MALFORMED_FUNCTION_CALL" if malformed else (FINISH_REASONS.get(reason, "OTHER") if reason else None)
        if mapped is None and parts:
            mapped = "STOP"  # a few servers end a tool-call stream without a finish reason
        return ModelChunk(parts=tuple(parts), finish_reason=mapped, usage=self.usage, model_version=self.model)


def _extra(obj: Any, name: str) -> Any:
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None)
        if isinstance(extra, dict):
            value = extra.get(name)
    return value


def _parse_args(text: str) -> dict[str, Any] | None:
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def usage_of(usage: Any) -> Usage:
    prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
    completion = int(getattr(usage, "completion_tokens", 0) or 0)
    details = getattr(usage, "completion_tokens_details", None)
    reasoning = int(getattr(details, "reasoning_tokens", 0) or 0) if details is not None else 0
    prompt_details = getattr(usage, "prompt_tokens_details", None)
    cached = int(getattr(prompt_details, "cached_tokens", 0) or 0) if prompt_details is not None else 0
    total = int(getattr(usage, "total_tokens", 0) or 0) or prompt + completion
    # Gemini counts thinking apart from the answer; OpenAI folds reasoning into completion_tokens.
    return Usage(
        prompt_tokens=prompt,
        candidates_tokens=max(0, completion - reasoning),
        thoughts_tokens=reasoning,
        cached_tokens=cached,
        total_tokens=total,
    )


def completion_to_chunk(response: Any) -> ModelChunk:
    """A non-streamed ChatCompletion as one ModelChunk."""
    assembler = StreamAssembler()
    parts: list[Part] = []
    choices = getattr(response, "choices", None) or []
    if choices:
        message = choices[0].message
        reasoning = _extra(message, "reasoning_content") or _extra(message, "reasoning")
        if isinstance(reasoning, str) and reasoning:
            parts.append(Part(text=reasoning, thought=True))
        if message.content:
            parts.append(Part(text=message.content))
        for index, call in enumerate(getattr(message, "tool_calls", None) or []):
            function = getattr(call, "function", None)
            if function is not None:
                assembler.calls[index] = _PartialCall(call.id or "", function.name or "", function.arguments or "")
        assembler.finish_reason = choices[0].finish_reason
    if getattr(response, "usage", None) is not None:
        assembler.usage = usage_of(response.usage)
    assembler.model = getattr(response, "model", None)
    last = assembler.finish()
    return ModelChunk(
        parts=(*parts, *last.parts),
        finish_reason=last.finish_reason,
        usage=last.usage,
        model_version=last.model_version,
    )
