"""OpenAIClient: the ModelClient for OpenAI-compatible Chat Completions (Ollama, llama.cpp, vLLM, OpenRouter, …).

The SDK is imported inside functions only (first request), so importing this package costs nothing at
start-up; this package is the only importer of ``openai``. Requests are built by :mod:`.request`, streamed
deltas assembled by :mod:`.stream`, failures mapped by :mod:`.errors`, the model list read by :mod:`.listing`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import AbstractContextManager
from typing import Any

from agent_lsp.errors import ModelError
from agent_lsp.model.base import GenerateRequest, ModelChunk, mapped_errors
from agent_lsp.model.inputs import ModelInputs
from agent_lsp.model.openai_compat import listing
from agent_lsp.model.openai_compat.errors import map_error, refuses_stream_options, refuses_streaming
from agent_lsp.model.openai_compat.keepalive import drain_after_done_hook
from agent_lsp.model.openai_compat.request import completion_params, history_in_extra_body, to_messages
from agent_lsp.model.openai_compat.stream import StreamAssembler, completion_to_chunk
from agent_lsp.model.provider import OpenAIConfig

log = logging.getLogger(__name__)


def warm() -> None:
    """Import the SDK now (from a warm-up thread), so the first request does not pay for it."""
    import openai  # noqa: F401


class OpenAIClient:
    """A ModelClient talking Chat Completions to any OpenAI-compatible server through the official SDK.

    One instance belongs to one event loop, because the SDK's HTTP connection pool does.
    """

    provider = "openai"

    def __init__(self, config: OpenAIConfig, *, timeout_s: float | None = None) -> None:
        self._config = config
        self._timeout_s = timeout_s
        self._sdk: Any = None
        # Some older servers refuse stream_options; learnt once, then usage is simply not asked for.
        self._stream_options = True
        self._streaming = True  # off once the endpoint said it cannot stream
        self._listed_windows: dict[str, int] = {}  # context windows the model list reported
        self._described: dict[str, ModelInputs | None] = {}  # what the endpoint says each model takes

    def __repr__(self) -> str:
        return f"OpenAIClient({self._config!r})"

    @property
    def config(self) -> OpenAIConfig:
        return self._config

    def describe(self) -> str:
        return self._config.describe()

    def context_window(self, model: str) -> int:
        """Settings for this model, else what the endpoint's model list said, else the settings' default."""
        own = self._config.limits.get(model)
        if own is not None and own.context_window:
            return own.context_window
        return self._listed_windows.get(model) or self._config.context_window(model)

    def _client(self) -> Any:
        if self._sdk is None:
            import openai

            # Retries are ours (core/retry.py), so the SDK's own are off.
            self._sdk = openai.AsyncOpenAI(
                api_key=self._config.api_key,
                base_url=self._config.base_url,
                max_retries=0,
                timeout=self._timeout_s if self._timeout_s is not None else 600.0,
                # The SDK's own client settings, plus a hook that keeps a streamed answer's connection.
                http_client=openai.DefaultAsyncHttpxClient(event_hooks={"response": [drain_after_done_hook()]}),
            )
            log.debug("openai client ready (%s)", self._config.describe())
        return self._sdk

    async def _ready(self) -> Any:
        """The SDK client; the first call imports ``openai`` (about a second of CPU) off the event loop."""
        if self._sdk is None:
            await asyncio.to_thread(self._client)
        return self._client()

    def _mapped_errors(
        self, model: str, interrupted: Callable[[], bool] = lambda: False
    ) -> AbstractContextManager[None]:
        """SDK and network failures become ModelError/AuthError/ModelStreamInterrupted; others pass."""
        return mapped_errors(lambda exc, late: map_error(exc, model, self._config, interrupted=late), interrupted)

    async def stream(self, request: GenerateRequest) -> AsyncIterator[ModelChunk]:
        if not self._streaming:
            yield await self.generate(request)
            return
        chunks = self._stream(request)
        try:
            async for chunk in chunks:
                yield chunk
        except ModelError as exc:
            if not refuses_streaming(exc):
                raise
            # An endpoint without streaming: ask for whole answers from now on.
            log.info("the endpoint does not stream; asking for whole responses")
            self._streaming = False
            yield await self.generate(request)
        finally:
            # Closed now, when the caller stops early, so the response is released at once (not by the GC).
            await chunks.aclose()

    async def _stream(self, request: GenerateRequest) -> AsyncGenerator[ModelChunk, None]:
        yielded = False
        responses: Any = None
        assembler = StreamAssembler()
        try:
            with self._mapped_errors(request.model, lambda: yielded):
                responses = await self._create(request)
                async for raw in responses:
                    for chunk in assembler.feed(raw):
                        yielded = True
                        yield chunk
            yield assembler.finish()
        finally:
            # Release the HTTP response now rather than at garbage collection (matters on cancel).
            close = getattr(responses, "close", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    await close()

    async def _create(self, request: GenerateRequest) -> Any:
        completions = (await self._ready()).chat.completions
        try:
            return await completions.create(**self._stream_params(request))
        except Exception as exc:
            if self._stream_options and refuses_stream_options(exc):
                log.info("the endpoint refuses stream_options; streaming without usage figures")
                self._stream_options = False
                return await completions.create(**self._stream_params(request))
            raise

    def _stream_params(self, request: GenerateRequest) -> dict[str, Any]:
        return history_in_extra_body(completion_params(request, self._config, stream=True, usage=self._stream_options))

    async def generate(self, request: GenerateRequest) -> ModelChunk:
        with self._mapped_errors(request.model):
            sdk = await self._ready()
            params = history_in_extra_body(completion_params(request, self._config, stream=False))
            response = await sdk.chat.completions.create(**params)
        return completion_to_chunk(response)

    async def count_tokens(self, request: GenerateRequest) -> int:
        """An estimate (about four characters a token): Chat Completions has no counting endpoint."""
        size = len(json.dumps(to_messages(request), ensure_ascii=False))
        return max(1, size // 4)

    async def list_models(self, timeout_s: float = 5.0) -> list[str]:
        """The model ids the endpoint offers (``GET /models``), sorted; the context windows it reports are kept
        for :meth:`context_window`."""
        ids, windows, inputs = await listing.list_models(self._config, timeout_s)
        self._listed_windows.update(windows)
        self._described.update(inputs)
        return ids

    async def describe_inputs(self, model: str, timeout_s: float = 2.0) -> ModelInputs | None:
        """What the endpoint says ``model`` takes besides text (None: it does not say); asked once per model."""
        if model not in self._described:
            self._described[model] = await listing.describe_model(self._config, model, timeout_s)
        return self._described[model]

    async def aclose(self) -> None:
        sdk, self._sdk = self._sdk, None
        if sdk is not None:
            await sdk.close()
