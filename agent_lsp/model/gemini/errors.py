"""google-genai and transport failures as our ModelError/AuthError/ModelStreamInterrupted, with Retry-After."""

from __future__ import annotations

import json
from typing import Any

from agent_lsp.errors import AuthError, ModelError, ModelStreamInterrupted
from agent_lsp.model.auth import AuthConfig
from agent_lsp.model.http_errors import is_network_error, one_line, parse_duration, parse_retry_after_header

# The SDK picks its HTTP stack at run time (httpx, the httpx2 fork, or aiohttp).
_TRANSPORT_MODULES = ("httpx", "httpx2", "httpcore", "h11", "aiohttp")


def map_error(exc: BaseException, model: str, auth: AuthConfig, *, interrupted: bool) -> ModelError | None:
    """Our ModelError for an SDK/transport failure, or None if ``exc`` is a bug that should raise.

    ``interrupted`` means chunks were already yielded, so the error becomes ModelStreamInterrupted.
    """
    # Imported here, not at the top: importing this package must not load the SDK (start-up budget).
    from google.genai import errors as genai_errors

    if isinstance(exc, ModelError):
        return exc
    status: int | None
    retry_after: float | None = None
    if isinstance(exc, genai_errors.APIError):
        status = int(exc.code) if exc.code else None
        retry_after = retry_after_of(exc)
        text = one_line(str(exc.message or ""), auth.api_key)
        label = f"{status} {exc.status}" if exc.status else f"{status}"
        message = f"Gemini API: {label} — {text}" if text else f"Gemini API: {label}"
        if status == 429:
            message += f" (model {model})"
        if status in (401, 403) and not interrupted:
            return AuthError(f"{message}. Check the credentials ({auth.describe()}).", status=status)
    elif type(exc).__module__.startswith("google.auth"):
        # google-auth (Vertex AI with Application Default Credentials) found no usable credentials.
        detail = one_line(str(exc), auth.api_key)
        return AuthError(
            f"Vertex AI credentials: {detail or type(exc).__name__} Run `gcloud auth application-default login`, "
            "or set GOOGLE_API_KEY for Vertex AI express mode."
        )
    elif is_network_error(exc, _TRANSPORT_MODULES):
        status = None
        where = "the connection broke mid-response" if interrupted else "could not reach the server"
        detail = one_line(str(exc), auth.api_key)
        message = f"Gemini API: {where} ({type(exc).__name__}{': ' + detail if detail else ''})"
    elif isinstance(exc, json.JSONDecodeError):
        status = None
        message = "Gemini API: the server sent a response that is not valid JSON"
    else:
        return None
    if interrupted:
        return ModelStreamInterrupted(message, status=status, retry_after=retry_after)
    return ModelError(message, status=status, retry_after=retry_after)


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
