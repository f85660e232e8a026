"""Retries, backoff and the pro-to-flash fallback around any ModelClient (pure asyncio, no SDK)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from agent_lsp.errors import AuthError, ModelError, ModelStreamInterrupted
from agent_lsp.events import ModelFallback, Retry
from agent_lsp.model.base import GenerateRequest, ModelChunk, ModelClient

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[Any]]

_JITTER = 0.3  # +-30% spreads clients that failed together so they do not retry together


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try before a model request fails the turn."""

    # Requests per model (the first one included) before giving up on errors that arrive before any
    # chunk; a fallback to another model starts a fresh count.
    max_attempts: int = 10  # Gemini CLI 0.61: 10 attempts, 5 s first delay, 30 s cap
    # First backoff delay; it doubles each attempt (with jitter) up to max_delay_s.
    initial_delay_s: float = 5.0
    # Ceiling of the computed backoff. A server-sent retry delay is honoured as sent, not capped.
    max_delay_s: float = 30.0
    # Restarts of a stream that broke after chunks arrived; the UI drops the partial output each time.
    stream_retries: int = 2
    # Consecutive 429s after which a pro model falls back to its flash sibling (when allowed).
    fallback_after_429s: int = 2
    # A server asking us to wait longer than this (a daily quota, say) is not worth waiting for:
    # fail (or fall back) at once with the server's message.
    max_retry_after_s: float = 300.0


_PRO = re.compile(r"(?P<prefix>models/)?gemini-(?P<version>\d+(?:\.\d+)?)-pro(?P<rest>(?:-[\w.]+)*)")


def fallback_model_for(model: str) -> str | None:
    """The flash sibling of a pro model (gemini-2.5-pro -> gemini-2.5-flash); None if there is none."""
    if "flash" in model or "lite" in model:
        return None
    if model in ("gemini-pro-latest", "models/gemini-pro-latest"):
        return model.replace("pro", "flash")
    match = _PRO.fullmatch(model)
    if match is None:
        return None
    version = match["version"]
    # Gemini 3 flash ships as a preview alongside the pro preview; earlier generations have a stable
    # flash even when the pro name carries a dated preview suffix (gemini-2.5-pro-preview-05-06).
    preview = "-preview" if "preview" in match["rest"] and float(version) >= 3 else ""
    return f"{match['prefix'] or ''}gemini-{version}-flash{preview}"


def backoff_delay(policy: RetryPolicy, attempt: int, *, rng: random.Random | None = None) -> float:
    """Delay before retry number ``attempt`` (1-based): exponential, jittered, capped at max_delay_s."""
    base = min(policy.max_delay_s, policy.initial_delay_s * 2.0 ** max(0, attempt - 1))
    jitter = rng.uniform(-_JITTER, _JITTER) if rng is not None else random.uniform(-_JITTER, _JITTER)
    return max(0.0, min(policy.max_delay_s, base * (1 + jitter)))


def _delay_for(exc: ModelError, policy: RetryPolicy, attempt: int) -> float:
    if exc.retry_after is not None:
        return exc.retry_after
    return backoff_delay(policy, attempt)


def _can_retry(exc: ModelError) -> bool:
    # AuthError without a status (missing credentials) reads as "retryable" on ModelError; it never is.
    return exc.retryable and not isinstance(exc, AuthError)


def _too_long(exc: ModelError, policy: RetryPolicy) -> bool:
    return exc.retry_after is not None and exc.retry_after > policy.max_retry_after_s


def _gave_up(exc: ModelError, attempts: int, why: str) -> ModelError:
    message = f"{exc} ({why})" if why else str(exc)
    error = type(exc)(message, status=exc.status, retry_after=exc.retry_after)
    error.__cause__ = exc
    return error


async def _close(iterator: AsyncIterator[ModelChunk]) -> None:
    aclose = getattr(iterator, "aclose", None)
    if aclose is not None:
        await aclose()


async def stream_with_retry(
    client: ModelClient,
    request: GenerateRequest,
    policy: RetryPolicy = RetryPolicy(),
    *,
    allow_fallback: bool = True,
    sleep: Sleep = asyncio.sleep,
) -> AsyncIterator[ModelChunk | Retry | ModelFallback]:
    """Stream ``request``, retrying as ``policy`` says; yields chunks plus Retry/ModelFallback events.

    A Retry event always comes before the wait, so a UI can show it and drop partial output. After
    a ModelFallback the rest of the stream (and, the caller should make sure, later requests) use
    the flash model. When retries run out, the last ModelError is raised with a note saying so.
    """
    current = request
    attempts = 0  # failed requests on the current model, before any chunk arrived
    restarts = 0  # streams restarted after breaking mid-way
    consecutive_429 = 0
    fell_back = False
    while True:
        yielded = False
        chunks = client.stream(current)
        try:
            async for chunk in chunks:
                yielded = True
                yield chunk
            return
        except ModelError as exc:
            error = exc
        finally:
            await _close(chunks)

        if yielded or isinstance(error, ModelStreamInterrupted):
            # Mid-stream breaks have their own small budget: the user already saw output.
            if not _can_retry(error):
                raise error
            if restarts >= policy.stream_retries:
                raise _gave_up(error, restarts, f"the stream broke {restarts + 1} times")
            restarts += 1
            delay = _delay_for(error, policy, restarts)
            log.info("model stream broke (%s); restart %d in %.1fs", error, restarts, delay)
            yield Retry(attempt=restarts, reason=str(error), delay_s=delay)
            await sleep(delay)
            continue

        if not _can_retry(error):
            raise error
        attempts += 1
        consecutive_429 = consecutive_429 + 1 if error.status == 429 else 0
        quota_wall = error.status == 429 and (consecutive_429 >= policy.fallback_after_429s or _too_long(error, policy))
        if quota_wall and allow_fallback and not fell_back:
            to_model = fallback_model_for(current.model)
            if to_model is not None:
                reason = f"{current.model} is over quota or rate-limited ({error})"
                log.info("falling back from %s to %s", current.model, to_model)
                yield ModelFallback(from_model=current.model, to_model=to_model, reason=reason)
                current = dataclasses.replace(current, model=to_model)
                fell_back = True
                attempts = 0
                consecutive_429 = 0
                continue
        if _too_long(error, policy):
            raise _gave_up(error, attempts, f"the server asks to wait {error.retry_after:.0f}s")
        if attempts >= policy.max_attempts:
            raise _gave_up(error, attempts, f"gave up after {attempts} attempts")
        delay = _delay_for(error, policy, attempts)
        log.info("model request failed (%s); retry %d in %.1fs", error, attempts, delay)
        yield Retry(attempt=attempts, reason=str(error), delay_s=delay)
        await sleep(delay)


async def generate_with_retry(
    client: ModelClient,
    request: GenerateRequest,
    policy: RetryPolicy = RetryPolicy(),
    *,
    sleep: Sleep = asyncio.sleep,
) -> ModelChunk:
    """A non-streamed request under the same retry rules (no events, and no model fallback)."""
    attempts = 0
    while True:
        try:
            return await client.generate(request)
        except ModelError as exc:
            if not _can_retry(exc):
                raise
            attempts += 1
            if _too_long(exc, policy):
                raise _gave_up(exc, attempts, f"the server asks to wait {exc.retry_after:.0f}s") from exc
            if attempts >= policy.max_attempts:
                raise _gave_up(exc, attempts, f"gave up after {attempts} attempts") from exc
            delay = _delay_for(exc, policy, attempts)
            log.info("model request failed (%s); retry %d in %.1fs", exc, attempts, delay)
        await sleep(delay)
