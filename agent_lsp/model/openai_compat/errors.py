"""OpenAI SDK and transport failures as our ModelError/AuthError/ModelStreamInterrupted, each saying what to do."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from agent_lsp.errors import AuthError, ModelError, ModelStreamInterrupted
from agent_lsp.model.http_errors import is_network_error, one_line, parse_retry_after_header
from agent_lsp.model.provider import OpenAIConfig

_TOOLS_UNSUPPORTED = re.compile(
    r"does not support tools|not support(?:ed)? (?:for )?(?:tools|function)|tool[_ ]choice|tools? (?:are|is) not "
    r"supported|tools param|--jinja|enable-auto-tool-choice|function calling",
    re.I,
)
_NO_STREAMING = re.compile(
    r"stream(?:ing)? (?:is |are )?not (?:supported|available|allowed)|does not support stream", re.I
)
_CONTEXT_OVERFLOW = re.compile(
    r"context[_ ]length|context window|maximum context|context size|too many tokens|prompt is too long|"
    r"exceeds? the (?:maximum|available) context|n_ctx|input is too long|token limit",
    re.I,
)


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return int(status) if isinstance(status, int) else None


def _body_error(exc: BaseException) -> dict[str, Any]:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        return inner if isinstance(inner, dict) else {"message": str(inner)}
    return {}


def _message(exc: BaseException) -> str:
    error = _body_error(exc)
    text = error.get("message")
    if isinstance(text, str) and text:
        return text
    return str(getattr(exc, "message", None) or exc)


def map_error(exc: BaseException, model: str, config: OpenAIConfig, *, interrupted: bool) -> ModelError | None:
    """Our ModelError for an SDK/transport failure, or None if ``exc`` is a bug that should raise."""
    # Imported here, not at the top: importing this package must not load the SDK (start-up budget).
    import openai

    if isinstance(exc, ModelError):
        return exc
    url = config.base_url
    status: int | None = None
    retry_after: float | None = None
    if isinstance(exc, openai.APIConnectionError) and not interrupted:
        return _unreachable(exc, config, timeout=isinstance(exc, openai.APITimeoutError))
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        retry_after = _retry_after(exc)
        text = clean(_message(exc), config)
        code = str(_body_error(exc).get("code") or "")
        label = f"{url}: {status}" + (f" — {text}" if text else "")
        if status in (401, 403):
            who = f"the key from {config.key_env}" if config.key_env else "no key (set OPENAI_API_KEY)"
            return AuthError(f"{label}. The endpoint refused {who}.", status=status)
        if status == 404:
            if code == "model_not_found" or "model" in text.lower():
                return ModelError(
                    f"{url} does not serve model '{model}' ({text or 'not found'}). Pick one it offers: the "
                    "editor's model picker lists them, or set OPENAI_MODEL / settings model.name.",
                    status=status,
                    retryable=False,
                )
            return ModelError(
                f"{url}/chat/completions was not found (404). Check OPENAI_BASE_URL (or settings model.baseUrl): "
                "it usually ends in /v1.",
                status=status,
                retryable=False,
            )
        if status in (400, 413, 422) and (code == "context_length_exceeded" or _CONTEXT_OVERFLOW.search(text)):
            return ModelError(
                f"The conversation no longer fits model '{model}''s context window ({text}). Run /compress or start "
                "a new session; set settings model.contextWindow to the model's real size so agent-lsp compresses "
                "in time.",
                status=status,
                retryable=False,
            )
        if status in (400, 422) and _TOOLS_UNSUPPORTED.search(text):
            return ModelError(
                f"Model '{model}' at {url} cannot use tools ({text}). agent-lsp needs tool calling: pick a model "
                "that supports it, or turn it on in the server (vLLM: --enable-auto-tool-choice --tool-call-parser; "
                "llama.cpp: --jinja). See docs/models.md.",
                status=status,
                retryable=False,
            )
        message = f"OpenAI-compatible endpoint {label}"
        if status == 429:
            message += f" (model {model})"
    elif isinstance(exc, openai.APIError):
        # An error event inside the stream (OpenRouter and others send these with a code in the body).
        error = _body_error(exc)
        error_code = error.get("code")
        status = error_code if isinstance(error_code, int) else None
        message = f"OpenAI-compatible endpoint {url}: {clean(_message(exc), config) or 'error in the stream'}"
    elif is_network_error(exc, _TRANSPORT_MODULES) or isinstance(exc, openai.APIConnectionError):
        detail = clean(str(exc), config)
        where = "the connection broke mid-response" if interrupted else "could not reach the server"
        message = f"OpenAI-compatible endpoint {url}: {where} ({type(exc).__name__}{': ' + detail if detail else ''})"
    elif isinstance(exc, json.JSONDecodeError):
        message = f"OpenAI-compatible endpoint {url}: the server sent a response that is not valid JSON"
    else:
        return None
    if interrupted:
        return ModelStreamInterrupted(message, status=status, retry_after=retry_after)
    return ModelError(message, status=status, retry_after=retry_after)


_TRANSPORT_MODULES = ("httpx", "httpcore", "h11", "anyio")


def _unreachable(exc: BaseException, config: OpenAIConfig, *, timeout: bool) -> ModelError:
    """No answer before the stream began: the endpoint is down, elsewhere, or slow."""
    url = config.base_url
    detail = clean(str(exc.__cause__ or exc), config)
    where = "timed out waiting for" if timeout else "could not reach"
    # Nothing listening on this machine is a server that is not running or a wrong port: say so at once
    # rather than after minutes of retries. A remote endpoint may be a passing network problem: retried.
    refused_here = not timeout and _is_local(url) and type(exc.__cause__).__name__ == "ConnectError"
    return ModelError(
        f"OpenAI-compatible endpoint: {where} {url} ({detail or type(exc).__name__}). Is the server running, "
        "and is OPENAI_BASE_URL (or settings model.baseUrl) right?",
        retryable=False if refused_here else None,
    )


def refuses_streaming(exc: ModelError) -> bool:
    """Whether a mapped error says the endpoint cannot stream at all (then whole answers are asked for)."""
    return exc.status == 400 and bool(_NO_STREAMING.search(str(exc)))


def refuses_stream_options(exc: BaseException) -> bool:
    """Whether an SDK error says the endpoint refuses ``stream_options`` (older servers; usage is then not asked)."""
    return _status(exc) == 400 and "stream_options" in _message(exc)


def _is_local(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


def _retry_after(exc: Any) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    return parse_retry_after_header(value) if value else None


def clean(text: str, config: OpenAIConfig) -> str:
    """One readable line of an error text, without the key (a key under 4 characters, a placeholder for a local
    server, is not masked: masking it would blank out ordinary letters of the message)."""
    key = config.api_key if config.api_key and len(config.api_key) >= 4 else None
    return one_line(text, key)
