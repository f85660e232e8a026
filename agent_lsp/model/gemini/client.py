"""GeminiClient: the ModelClient backed by google-genai's async API (built lazily, warmed while the user types).

The SDK is imported inside functions only, so importing this package costs nothing at start-up; this package
is the only importer of ``google.genai``. Requests are built by :mod:`.request` (through
:func:`agent_lsp.model.wire.request_to_json`) and responses parsed by :mod:`.response` (through
:func:`agent_lsp.model.wire.chunk_from_json`), so there is one codec for REST, replay and SDK.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager
from typing import Any

from agent_lsp.model.auth import AuthConfig
from agent_lsp.model.base import GenerateRequest, ModelChunk, mapped_errors
from agent_lsp.model.gemini.errors import map_error
from agent_lsp.model.gemini.history import WireCache
from agent_lsp.model.gemini.request import history_in_extra_body, sdk_request
from agent_lsp.model.gemini.response import response_to_chunk
from agent_lsp.model.gemini.warmup import warm_validators

log = logging.getLogger(__name__)


class GeminiClient:
    """A ModelClient talking to the Gemini API (or Vertex AI) through google-genai.

    ``timeout_s`` bounds each HTTP request (None: the SDK default, no limit); ``api_version`` overrides
    the REST version path (default v1beta for the Gemini API, the SDK's own for Vertex). One instance belongs
    to one event loop, because the SDK's HTTP connection pool does.
    """

    def __init__(self, auth: AuthConfig, *, timeout_s: float | None = None, api_version: str | None = None) -> None:
        self._auth = auth
        self._timeout_s = timeout_s
        # google-genai 3.x defaults the Gemini API to v1; thought signatures, function-call ids and
        # JSON-schema fields are v1beta features (Gemini CLI's version), so pin it unless told otherwise.
        if api_version is None and auth.mode == "api_key" and not os.environ.get("GOOGLE_GENAI_API_VERSION"):
            api_version = "v1beta"
        self._api_version = api_version
        self._sdk: Any = None
        self._wired = WireCache()
        self._requested = False  # a request has started: warming would only compete with it
        self._build_lock = threading.Lock()  # warm() may build the SDK client on a worker thread

    def __repr__(self) -> str:
        return f"GeminiClient({self._auth!r})"

    @property
    def auth(self) -> AuthConfig:
        return self._auth

    def warm(self) -> None:
        """Import google-genai and build its client on a worker thread, off the first prompt's critical path.

        Importing the SDK and building its client cost ~0.3 s here (far more on a loaded machine); a user
        typing their first prompt gives that time for free. A request that comes sooner waits for the
        same build (one lock), so no work is skipped or done twice.
        """
        if not self._requested:
            threading.Thread(target=self._warm, name="genai-warm", daemon=True).start()

    def _warm(self) -> None:
        try:
            if self._requested:
                # A prompt came first (sent at once): it builds what it needs itself; the validators and the
                # backend warmed in parallel would only compete with it for the GIL.
                return
            self._client()
            if not self._requested:
                warm_validators()
        except Exception:  # the same failure is raised, and reported, by the first request
            log.debug("warming google-genai failed", exc_info=True)

    def _client(self) -> Any:
        if self._sdk is not None:
            return self._sdk
        with self._build_lock:
            return self._build_client()

    def _build_client(self) -> Any:
        if self._sdk is None:
            from google import genai
            from google.genai import types

            options: dict[str, Any] = {}
            if self._auth.base_url:
                options["base_url"] = self._auth.base_url
            if self._api_version:
                options["api_version"] = self._api_version
            if self._timeout_s is not None:
                options["timeout"] = int(self._timeout_s * 1000)  # the SDK counts milliseconds
            http_options = types.HttpOptions(**options)
            if self._auth.mode == "vertex":
                if self._auth.api_key:
                    self._sdk = genai.Client(vertexai=True, api_key=self._auth.api_key, http_options=http_options)
                else:
                    self._sdk = genai.Client(
                        vertexai=True,
                        project=self._auth.project,
                        location=self._auth.location,
                        http_options=http_options,
                    )
            else:
                self._sdk = genai.Client(vertexai=False, api_key=self._auth.api_key, http_options=http_options)
            log.debug("google-genai client ready (%s)", self._auth.describe())
        return self._sdk

    def _mapped_errors(
        self, model: str, interrupted: Callable[[], bool] = lambda: False
    ) -> AbstractContextManager[None]:
        """SDK and network failures become ModelError/AuthError/ModelStreamInterrupted; others pass."""
        return mapped_errors(lambda exc, late: map_error(exc, model, self._auth, interrupted=late), interrupted)

    async def stream(self, request: GenerateRequest) -> AsyncIterator[ModelChunk]:
        self._requested = True
        contents, config = sdk_request(request, self._wired)
        yielded = False
        responses: Any = None
        try:
            with self._mapped_errors(request.model, lambda: yielded):
                responses = await self._client().aio.models.generate_content_stream(
                    model=request.model, contents=contents, config=config
                )
                async for response in responses:
                    chunk = response_to_chunk(response)
                    yielded = True
                    yield chunk
        finally:
            # Release the HTTP response now rather than at garbage collection (matters on cancel).
            aclose = getattr(responses, "aclose", None)
            if aclose is not None:
                await aclose()

    async def generate(self, request: GenerateRequest) -> ModelChunk:
        self._requested = True
        contents, config = sdk_request(request, self._wired)
        with self._mapped_errors(request.model):
            response = await self._client().aio.models.generate_content(
                model=request.model, contents=contents, config=config
            )
        return response_to_chunk(response)

    async def count_tokens(self, request: GenerateRequest) -> int:
        """Tokens in the request's contents (the Gemini API counts contents only, not tools/system)."""
        from google.genai import types

        contents, http_options = history_in_extra_body(self._wired.contents(request.contents))
        config = types.CountTokensConfig(http_options=types.HttpOptions(**http_options))
        with self._mapped_errors(request.model):
            response = await self._client().aio.models.count_tokens(
                model=request.model, contents=contents, config=config
            )
        return int(getattr(response, "total_tokens", None) or 0)

    async def list_models(self, timeout_s: float | None = None) -> list[dict[str, Any]]:
        """The models this key can use (the API's models.list), as JSON dicts. Raises ModelError, or TimeoutError
        when the API takes longer than ``timeout_s``."""
        # Importing and building the SDK (~0.3 s, seconds on a busy machine) runs on a worker thread and is not
        # the API's time: counted against the timeout, a slow import alone hid the key's models from the picker.
        sdk = await asyncio.to_thread(self._client)
        out: list[dict[str, Any]] = []
        async with asyncio.timeout(timeout_s):
            with self._mapped_errors("models"):
                pager = await sdk.aio.models.list(config={"page_size": 200, "query_base": True})
                async for model in pager:
                    out.append(model.model_dump(mode="json", exclude_none=True))
        return out

    async def aclose(self) -> None:
        """Close the SDK's HTTP connections (safe to call more than once)."""
        sdk, self._sdk = self._sdk, None
        if sdk is not None:
            await sdk.aio.aclose()
