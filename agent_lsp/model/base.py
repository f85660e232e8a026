"""The ModelClient Protocol and the request/response types the core speaks (no SDK types here)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from agent_lsp.events import Usage

Role = Literal["user", "model"]


@dataclass(frozen=True)
class FunctionCall:
    name: str
    args: dict[str, Any]
    id: str | None = None


@dataclass(frozen=True)
class FunctionResponse:
    name: str
    response: dict[str, Any]
    id: str | None = None


@dataclass(frozen=True)
class InlineData:
    mime_type: str
    data: bytes


@dataclass(frozen=True)
class Part:
    """One part of a message. Exactly one of text / function_call / function_response / inline_data."""

    text: str | None = None
    thought: bool = False
    # Gemini 2.5+ signs thoughts that precede function calls; the signature must go back unchanged.
    thought_signature: str | None = None
    function_call: FunctionCall | None = None
    function_response: FunctionResponse | None = None
    inline_data: InlineData | None = None


@dataclass(frozen=True)
class Content:
    role: Role
    parts: tuple[Part, ...]


@dataclass(frozen=True)
class FunctionDeclaration:
    name: str
    description: str
    parameters: dict[str, Any]  # JSON schema


@dataclass(frozen=True)
class GenerateRequest:
    model: str
    contents: tuple[Content, ...]
    system_instruction: str | None = None
    tools: tuple[FunctionDeclaration, ...] = ()
    google_search: bool = False  # the grounding tool, used only by google_web_search
    url_context: bool = False  # the URL context tool: the API fetches the URLs in the prompt (web_fetch)
    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    include_thoughts: bool = True
    thinking_budget: int | None = None  # Gemini 2.5 models
    thinking_level: str | None = None  # Gemini 3 models ("HIGH", "LOW")
    response_json_schema: dict[str, Any] | None = None


@dataclass(frozen=True)
class GroundingSource:
    title: str
    uri: str


@dataclass(frozen=True)
class ModelChunk:
    """One streamed response chunk (or a whole non-streamed response)."""

    parts: tuple[Part, ...] = ()
    finish_reason: str | None = None  # Gemini's enum name, e.g. "STOP", "MAX_TOKENS", "SAFETY"
    usage: Usage | None = None
    block_reason: str | None = None  # promptFeedback.blockReason when the prompt itself was blocked
    model_version: str | None = None
    sources: tuple[GroundingSource, ...] = field(default=())

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if p.text and not p.thought)


class ModelClient(Protocol):
    """What the core needs of a model. Errors are :class:`agent_lsp.errors.ModelError`."""

    def stream(self, request: GenerateRequest) -> AsyncIterator[ModelChunk]: ...

    async def generate(self, request: GenerateRequest) -> ModelChunk: ...

    async def count_tokens(self, request: GenerateRequest) -> int: ...


@contextlib.contextmanager
def mapped_errors(
    mapper: Callable[[Exception, bool], Exception | None], interrupted: Callable[[], bool] = lambda: False
) -> Iterator[None]:
    """An SDK's failures become ours (ModelError, AuthError, ModelStreamInterrupted) through ``mapper``, which
    is told whether output was already delivered; what it does not know passes unchanged, and so does a cancel."""
    try:
        yield
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        mapped = mapper(exc, interrupted())
        if mapped is None:
            raise
        raise mapped from exc
