"""One model response: a (retried) stream of chunks turned into events plus what history needs."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field

from agent_lsp import events as ev
from agent_lsp.core.message_ids import new_message_id
from agent_lsp.core.tool import ToolCallRequestInfo
from agent_lsp.model.base import ModelChunk, Part

# Finish reasons that mean the model refused or was stopped for policy reasons.
SAFETY_REASONS = frozenset(
    {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE"}
)
_BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)


def parse_thought(text: str) -> ev.Thought:
    """Subject is the first **bold** span; the description is the rest of the text."""
    m = _BOLD.search(text)
    if not m:
        return ev.Thought(subject="", description=text.strip())
    rest = (text[: m.start()] + text[m.end() :]).strip()
    return ev.Thought(subject=m.group(1).strip(), description=rest)


@dataclass
class TurnResult:
    """What the session needs after the stream ended."""

    model_parts: list[Part] = field(default_factory=list)
    calls: list[ToolCallRequestInfo] = field(default_factory=list)
    finish_reason: str | None = None
    usage: ev.Usage | None = None
    block_reason: str | None = None
    saw_thought: bool = False
    fallback_model: str | None = None
    model_ids: dict[str, str | None] = field(default_factory=dict)  # our call id -> the model's own id
    # The message being streamed ("content" or "thought") and its id: chunks get it here, so the session's stream
    # need not copy each event to stamp it (core/message_ids.py; the same rule).
    message_kind: str = ""
    message_id: str = ""

    def reset(self) -> None:
        """Forget partial output: the stream is being retried from the start."""
        self.model_parts.clear()
        self.calls.clear()
        self.model_ids.clear()
        self.finish_reason = None
        self.usage = None
        self.block_reason = None
        self.saw_thought = False
        self.message_kind = ""

    @property
    def text(self) -> str:
        return "".join(p.text or "" for p in self.model_parts if p.function_call is None)

    def invalid_reason(self) -> ev.InvalidStream | None:
        """Why this response cannot be used as is, if it cannot."""
        if self.block_reason or (self.finish_reason in SAFETY_REASONS):
            return ev.InvalidStream("safety", self.block_reason or self.finish_reason or "")
        if self.finish_reason == "MALFORMED_FUNCTION_CALL":
            return ev.InvalidStream("malformed_function_call", "the model produced a function call it could not parse")
        if self.calls:
            return None
        if self.finish_reason is None:
            return ev.InvalidStream("no_finish_reason", "the stream ended without a finish reason")
        if not self.text.strip():
            if self.saw_thought:
                return ev.InvalidStream("thoughts_only", "the model only thought and said nothing")
            if self.finish_reason != "MAX_TOKENS":
                return ev.InvalidStream("empty_response", "the model returned no text and no tool call")
        return None


async def run_turn(
    stream: AsyncIterator[ModelChunk | ev.Retry | ev.ModelFallback], result: TurnResult
) -> AsyncGenerator[ev.AgentEvent, None]:
    """Consume one (retried) response stream, yielding events and filling ``result``."""
    async for item in stream:
        if isinstance(item, ev.Retry):
            result.reset()
            yield item
            continue
        if isinstance(item, ev.ModelFallback):
            result.fallback_model = item.to_model
            yield item
            continue
        for event in _chunk_events(item, result):
            yield event


def _message_id(result: TurnResult, kind: str) -> str:
    if result.message_kind != kind:
        result.message_kind, result.message_id = kind, new_message_id()
    return result.message_id


def _chunk_events(chunk: ModelChunk, result: TurnResult) -> list[ev.AgentEvent]:
    out: list[ev.AgentEvent] = []
    if chunk.block_reason:
        result.block_reason = chunk.block_reason
    if chunk.usage is not None:
        result.usage = chunk.usage
    for part in chunk.parts:
        if part.thought:
            result.saw_thought = True
            if part.text:
                thought = parse_thought(part.text)
                out.append(ev.Thought(thought.subject, thought.description, _message_id(result, "thought")))
            if part.thought_signature and part.function_call is None:
                # Signatures ride on thought parts without text too; keep them for the next request.
                result.model_parts.append(Part(text="", thought_signature=part.thought_signature))
            continue
        if part.function_call is not None:
            call_id = part.function_call.id or f"{part.function_call.name}-{uuid.uuid4().hex[:12]}"
            # Keep the model's own id (or none) in history; our id is for the UI and the scheduler.
            result.model_parts.append(part)
            result.calls.append(ToolCallRequestInfo(call_id, part.function_call.name, dict(part.function_call.args)))
            result.model_ids[call_id] = part.function_call.id
            result.message_kind = ""  # text after a call is a new message
            continue
        if part.text:
            result.model_parts.append(part)
            out.append(ev.Content(part.text, _message_id(result, "content")))
        elif part.inline_data is not None or part.thought_signature:
            result.model_parts.append(part)
    if chunk.finish_reason:
        result.finish_reason = chunk.finish_reason
    return out
