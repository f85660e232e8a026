"""GeminiClient: the ModelClient backed by google-genai's async API; the only module that imports google.genai.

The SDK is imported lazily (first request), so importing this module costs nothing at start-up.
Requests are built by :func:`agent_lsp.model.wire.request_to_json` and responses parsed by
:func:`agent_lsp.model.wire.chunk_from_json`, so there is one codec for REST, replay and SDK.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import email.utils
import json
import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from agent_lsp.errors import AuthError, ModelError, ModelStreamInterrupted
from agent_lsp.model import wire
from agent_lsp.model.auth import AuthConfig
from agent_lsp.model.base import Content, GenerateRequest, ModelChunk, mapped_errors

log = logging.getLogger(__name__)

_MAX_MESSAGE = 300


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
        self._wired = _WireCache()
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
                _warm_validators()
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
        contents, config = _sdk_request(request, self._wired)
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
        contents, config = _sdk_request(request, self._wired)
        with self._mapped_errors(request.model):
            response = await self._client().aio.models.generate_content(
                model=request.model, contents=contents, config=config
            )
        return response_to_chunk(response)

    async def count_tokens(self, request: GenerateRequest) -> int:
        """Tokens in the request's contents (the Gemini API counts contents only, not tools/system)."""
        from google.genai import types

        contents, http_options = _history_in_extra_body(self._wired.contents(request.contents))
        config = types.CountTokensConfig(http_options=types.HttpOptions(**http_options))
        with self._mapped_errors(request.model):
            response = await self._client().aio.models.count_tokens(
                model=request.model, contents=contents, config=config
            )
        return int(getattr(response, "total_tokens", None) or 0)

    async def list_models(self) -> list[dict[str, Any]]:
        """The models this key can use (the API's models.list), as JSON dicts. Raises ModelError."""
        out: list[dict[str, Any]] = []
        with self._mapped_errors("models"):
            pager = await self._client().aio.models.list(config={"page_size": 200, "query_base": True})
            async for model in pager:
                out.append(model.model_dump(mode="json", exclude_none=True))
        return out

    async def aclose(self) -> None:
        """Close the SDK's HTTP connections (safe to call more than once)."""
        sdk, self._sdk = self._sdk, None
        if sdk is not None:
            await sdk.aio.aclose()


# -- request / response conversion -----------------------------------------------------------------


class _WireCache:
    """Each history entry's REST JSON, converted once rather than on every request.

    History entries are immutable and live as long as the session's history, so a turn at prompt 200
    otherwise re-converted ~400 entries (``wire.content_to_json`` + :func:`_wire_content`) each time.
    Keyed by identity (the entry is kept with its JSON, so an id cannot be reused while cached); entries
    no longer in the history (after compression) are dropped when the cache grows past twice its size.
    The JSON is shared between requests, so nothing downstream may modify it (nothing does: it is
    serialised as is).
    """

    def __init__(self) -> None:
        self._json: dict[int, tuple[Content, dict[str, Any]]] = {}

    def contents(self, history: Sequence[Content]) -> list[dict[str, Any]]:
        cache = self._json
        out: list[dict[str, Any]] = []
        for content in history:
            hit = cache.get(id(content))
            if hit is None or hit[0] is not content:
                hit = cache[id(content)] = (content, _wire_content(wire.content_to_json(content)))
            out.append(hit[1])
        if len(cache) > 2 * len(history) + 64:
            self._json = {id(c): cache[id(c)] for c in history}
        return out


def _sdk_request(request: GenerateRequest, wired: _WireCache) -> tuple[list[dict[str, Any]], Any]:
    """The SDK's (contents, config) for ``request``, built from the one REST codec.

    The history travels in the request body as our REST JSON through ``HttpOptions.extra_body``; the SDK's own
    ``contents`` argument gets only the newest entry (see :func:`_history_in_extra_body` for why).
    """
    from google.genai import types

    body = wire.request_to_json(dataclasses.replace(request, contents=()))
    contents = wired.contents(request.contents)
    config: dict[str, Any] = dict(body.get("generationConfig") or {})
    if "systemInstruction" in body:
        config["systemInstruction"] = body["systemInstruction"]
    if "tools" in body:
        config["tools"] = body["tools"]
    # The SDK would send thinkingConfig and tool schemas with snake_case keys and topK as a float; send them
    # as Gemini CLI does (camelCase, an integer) by merging them into the request body ourselves.
    extra: dict[str, Any] = {}
    generation = {k: config.pop(k) for k in ("topK", "thinkingConfig") if k in config}
    if generation:
        extra["generationConfig"] = generation
    if "tools" in config:
        # Likewise the declarations: "parametersJsonSchema", as Gemini CLI sends them.
        extra["tools"] = config.pop("tools")
    # Our tools are declarations the core runs itself, and retries are ours: keep the SDK out of both.
    config["automatic_function_calling"] = {"disable": True}
    config["automatic_continuation"] = False
    sdk_contents, http_options = _history_in_extra_body(contents)
    http_options["extra_body"].update(extra)
    # Handed over as a dict, not a GenerateContentConfig: the SDK deep-copies a config model on every call
    # (``model_copy(deep=True)``), which with the history in ``extra_body`` made each turn linear in the
    # history (~1,000 deepcopy calls a turn at prompt 20). A dict is validated instead, and the
    # HttpOptions instance inside it is taken as is (pydantic does not revalidate instances).
    config["http_options"] = types.HttpOptions(**http_options)
    return sdk_contents, config


def _history_in_extra_body(contents: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(the SDK's ``contents`` argument, per-request ``http_options``) carrying the whole history.

    A deliberate departure from the SDK's usual path, kept because users feel it: google-genai re-validates
    every history entry into pydantic ``Content``/``Part`` models and converts them back field by field on
    each request (about 1 ms per entry here), so a turn at prompt 200 cost ~0.3–0.6 s in the SDK alone
    (bench/long_session.py). ``HttpOptions.extra_body`` is the SDK's documented per-request option whose
    keys are merged into the REST body, replacing a list wholesale, so the full ``contents`` goes out as
    the REST JSON we already built (what the replay model records too) at the cost of one ``json.dumps``.
    The SDK still validates the newest entry as its own ``contents`` argument (it requires one), and
    tests/model/test_gemini_client.py checks that the server receives the whole history exactly.
    """
    return [_sdk_content(contents[-1])] if contents else [], {"extra_body": {"contents": contents}}


# The SDK's pydantic models a request and its answer validate; pydantic builds each one's validator on first
# use (~0.1 s together here), so warm() builds them ahead. One is private to the SDK, hence looked up by name.
_WARM_MODELS = (
    "HttpOptions",
    "GenerateContentConfig",
    "Tool",
    "FunctionDeclaration",
    "ThinkingConfig",
    "Content",
    "Part",
    "_GenerateContentParameters",
    "GenerateContentResponse",
    "Candidate",
    "HttpResponse",
    "CountTokensConfig",
)


def _warm_validators() -> None:
    """Build the validators of :data:`_WARM_MODELS` now rather than during the first request."""
    import importlib

    from google.genai import types

    for name in _WARM_MODELS:
        model = getattr(types, name, None)
        if model is not None:
            model.model_rebuild()
    # The HTTP stack loads anyio's asyncio backend at the first connection (~30 ms of imports).
    with contextlib.suppress(ImportError):
        importlib.import_module("anyio._backends._asyncio")


def _wire_content(content: dict[str, Any]) -> dict[str, Any]:
    """A REST content as sent: a thought signature that is not base64 is dropped (the API would refuse it)."""
    parts = content.get("parts") or []
    if not any("thoughtSignature" in part for part in parts):
        return content
    kept = []
    for part in parts:
        signature = part.get("thoughtSignature")
        if signature is not None and _b64_bytes(signature) is None:
            log.warning("dropping a thought signature that is not base64 (%d characters)", len(signature))
            part = {k: v for k, v in part.items() if k != "thoughtSignature"}
        kept.append(part)
    return {"role": content["role"], "parts": kept}


def _sdk_content(content: dict[str, Any]) -> dict[str, Any]:
    parts = []
    for part in content.get("parts") or []:
        part = dict(part)
        signature = part.pop("thoughtSignature", None)
        if signature is not None:
            raw = _b64_bytes(signature)
            if raw is not None:
                # The SDK types the signature as bytes and base64-encodes it on the wire itself.
                part["thoughtSignature"] = raw
        inline = part.get("inlineData")
        if inline is not None:
            part["inlineData"] = {"mimeType": inline["mimeType"], "data": base64.b64decode(inline["data"])}
        parts.append(part)
    return {"role": content["role"], "parts": parts}


def _b64_bytes(value: str) -> bytes | None:
    text = value.strip()
    text += "=" * (-len(text) % 4)
    try:
        if "-" in text or "_" in text:
            return base64.b64decode(text, altchars=b"-_", validate=True)
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def response_to_chunk(response: Any) -> ModelChunk:
    """An SDK GenerateContentResponse as our ModelChunk, through wire.chunk_from_json."""
    data: dict[str, Any] = response.model_dump(
        mode="json", exclude_none=True, exclude={"sdk_http_response", "automatic_function_calling_history"}
    )
    # Pydantic dumps bytes as URL-safe base64; Gemini and our JSONL use the standard alphabet, and a
    # signature must go back exactly as it came, so re-encode from the raw bytes.
    for cand_data, cand in zip(data.get("candidates") or [], response.candidates or [], strict=False):
        content = getattr(cand, "content", None)
        parts = getattr(content, "parts", None) or []
        for part_data, part in zip((cand_data.get("content") or {}).get("parts") or [], parts, strict=False):
            if part.thought_signature is not None:
                part_data["thought_signature"] = base64.b64encode(part.thought_signature).decode("ascii")
            if part.inline_data is not None and part.inline_data.data is not None:
                part_data["inline_data"]["data"] = base64.b64encode(part.inline_data.data).decode("ascii")
    return wire.chunk_from_json(data)


# -- errors ------------------------------------------------------------------------------------------


def map_error(exc: BaseException, model: str, auth: AuthConfig, *, interrupted: bool) -> ModelError | None:
    """Our ModelError for an SDK/transport failure, or None if ``exc`` is a bug that should raise.

    ``interrupted`` means chunks were already yielded, so the error becomes ModelStreamInterrupted.
    """
    from google.genai import errors as genai_errors

    if isinstance(exc, ModelError):
        return exc
    status: int | None
    retry_after: float | None = None
    if isinstance(exc, genai_errors.APIError):
        status = int(exc.code) if exc.code else None
        retry_after = retry_after_of(exc)
        text = _clean(str(exc.message or ""), auth)
        label = f"{status} {exc.status}" if exc.status else f"{status}"
        message = f"Gemini API: {label} — {text}" if text else f"Gemini API: {label}"
        if status == 429:
            message += f" (model {model})"
        if status in (401, 403) and not interrupted:
            return AuthError(f"{message}. Check the credentials ({auth.describe()}).", status=status)
    elif type(exc).__module__.startswith("google.auth"):
        # google-auth (Vertex AI with Application Default Credentials) found no usable credentials.
        detail = _clean(str(exc), auth)
        return AuthError(
            f"Vertex AI credentials: {detail or type(exc).__name__} Run `gcloud auth application-default login`, "
            "or set GOOGLE_API_KEY for Vertex AI express mode."
        )
    elif _is_network_error(exc):
        status = None
        where = "the connection broke mid-response" if interrupted else "could not reach the server"
        detail = _clean(str(exc), auth)
        message = f"Gemini API: {where} ({type(exc).__name__}{': ' + detail if detail else ''})"
    elif isinstance(exc, json.JSONDecodeError):
        status = None
        message = "Gemini API: the server sent a response that is not valid JSON"
    else:
        return None
    if interrupted:
        return ModelStreamInterrupted(message, status=status, retry_after=retry_after)
    return ModelError(message, status=status, retry_after=retry_after)


_TRANSPORT_MODULES = ("httpx", "httpx2", "httpcore", "h11", "aiohttp")
_NOT_NETWORK = frozenset({"InvalidURL", "UnsupportedProtocol", "CookieConflict"})


def _is_network_error(exc: BaseException) -> bool:
    if isinstance(exc, ConnectionError | TimeoutError | OSError):
        return True
    # The SDK picks its HTTP stack at run time (httpx, the httpx2 fork, or aiohttp), so recognise
    # their exceptions by module instead of importing each one.
    root = type(exc).__module__.split(".", 1)[0]
    return root in _TRANSPORT_MODULES and type(exc).__name__ not in _NOT_NETWORK


def _clean(text: str, auth: AuthConfig) -> str:
    """One readable line: no key, no HTML, no JSON dump, bounded length."""
    if auth.api_key:
        text = text.replace(auth.api_key, "***")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    line = lines[0] if lines else ""
    if line.startswith(("<", "{", "[")):
        return ""
    line = " ".join(line.split())
    return line if len(line) <= _MAX_MESSAGE else line[: _MAX_MESSAGE - 1] + "…"


def retry_after_of(exc: Any) -> float | None:
    """Seconds to wait, from the HTTP Retry-After header or a google.rpc.RetryInfo detail."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is not None:
        try:
            value = headers.get("retry-after")
        except Exception:  # an exotic headers object; fall back to the body
            value = None
        seconds = parse_retry_after_header(value) if value else None
        if seconds is not None:
            return seconds
    details = getattr(exc, "details", None)
    error = details.get("error", details) if isinstance(details, dict) else None
    if isinstance(error, dict):
        for item in error.get("details") or []:
            if isinstance(item, dict) and str(item.get("@type", "")).endswith("google.rpc.RetryInfo"):
                seconds = parse_duration(item.get("retryDelay"))
                if seconds is not None:
                    return seconds
    return None


def parse_retry_after_header(value: str) -> float | None:
    """``Retry-After`` as seconds: a number, or an HTTP date (seconds from now, never negative)."""
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def parse_duration(value: Any) -> float | None:
    """A protobuf Duration as seconds: JSON form ``"7s"`` / ``"1.5s"`` or ``{"seconds", "nanos"}``."""
    if isinstance(value, str) and value.strip().endswith("s"):
        try:
            return max(0.0, float(value.strip()[:-1]))
        except ValueError:
            return None
    if isinstance(value, dict):
        try:
            return max(0.0, float(value.get("seconds") or 0) + float(value.get("nanos") or 0) / 1e9)
        except (TypeError, ValueError):
            return None
    return None
