"""Chat compression: summarise the oldest part of the history into a state snapshot, keep the newest verbatim."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from agent_lsp.core.history import estimate_tokens, is_function_response_turn
from agent_lsp.core.prompts import COMPRESSION_ACK, COMPRESSION_PROMPT, COMPRESSION_REQUEST
from agent_lsp.model.base import Content, GenerateRequest, ModelChunk, Part

DEFAULT_THRESHOLD = 0.5  # of the model's context window
PRESERVE_FRACTION = 0.3  # newest share of the history kept as is


def find_split_point(contents: Sequence[Content], keep_fraction: float = PRESERVE_FRACTION) -> int:
    """Index where the kept part starts: the first user message (not a function response) after the
    oldest (1 - keep_fraction) of the characters. 0 means nothing can be compressed."""
    sizes = [max(1, estimate_tokens([c])) for c in contents]
    total = sum(sizes)
    target = total * (1 - keep_fraction)
    running = 0
    for i, c in enumerate(contents):
        if running >= target and c.role == "user" and not is_function_response_turn(c):
            return i
        running += sizes[i]
    # No user message after the target: if the conversation rests on a finished model answer,
    # everything can be summarised (nothing is waiting for a function response).
    last = contents[-1] if contents else None
    if last is not None and last.role == "model" and not any(p.function_call for p in last.parts):
        return len(contents)
    return 0


@dataclass(frozen=True)
class CompressionResult:
    contents: tuple[Content, ...]
    original_tokens: int
    new_tokens: int
    summary: str = ""  # the state snapshot that replaced the older messages


class CompressionFailed(Exception):
    """The model was asked for a summary but it cannot be used (empty, or no smaller than what it replaces)."""


async def compress(
    contents: Sequence[Content],
    *,
    model: str,
    original_tokens: int,
    generate: Callable[[GenerateRequest], Awaitable[ModelChunk]],
    on_start: Callable[[], None] | None = None,
) -> CompressionResult | None:
    """Summarise the old part; None when there is nothing to compress (too short). ``on_start`` is called just
    before the model is asked; CompressionFailed after that when the summary cannot be used."""
    split = find_split_point(contents)
    if split <= 0:
        return None
    old, kept = contents[:split], contents[split:]
    request = GenerateRequest(
        model=model,
        contents=(*old, Content("user", (Part(text=COMPRESSION_REQUEST),))),
        system_instruction=COMPRESSION_PROMPT,
        include_thoughts=False,
    )
    if on_start is not None:
        on_start()
    summary = (await generate(request)).text.strip()
    if not summary:
        raise CompressionFailed("the model returned an empty summary")
    new_contents = (
        Content("user", (Part(text=summary),)),
        Content("model", (Part(text=COMPRESSION_ACK),)),
        *kept,
    )
    # The kept tail is scaled by the known total; the summary is estimated (counting would cost a call).
    kept_share = estimate_tokens(kept) / max(1, estimate_tokens(contents))
    new_tokens = int(original_tokens * kept_share) + estimate_tokens(new_contents[:2])
    if new_tokens >= original_tokens:
        raise CompressionFailed(f"the summary (~{new_tokens} tokens) would not be smaller than the conversation")
    return CompressionResult(tuple(new_contents), original_tokens, new_tokens, summary)
