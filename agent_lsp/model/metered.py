"""Metering: every model call a session makes, counted by model in one ledger (docs/models.md#cost).

The session's router hands out only metered clients, so whatever asks the model through the session's wiring —
the main loop, subagents, compression, web_fetch/web_search, MCP sampling, each retry — is counted once, here,
from the usage the provider reported. Nothing else in the code prices a request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from agent_lsp.events import ModelUsage, Usage, UsageTotals
from agent_lsp.model.base import GenerateRequest, ModelChunk, ModelClient
from agent_lsp.model.prices import Price, price_of, request_cost


@dataclass
class _Tally:
    requests: int = 0
    usage: Usage = field(default_factory=Usage)
    cost: float | None = 0.0


class UsageLedger:
    """One session's usage and estimated cost, by model name (as sent to the API, without ``models/``)."""

    def __init__(self, price: Callable[[str], Price | None] = price_of) -> None:
        self.price = price
        self._by_model: dict[str, _Tally] = {}

    def update(self, model: str, usage: Usage, before: Usage | None) -> None:
        """Count one request's ``usage``, replacing what the same request reported ``before`` (a stream reports
        its running totals on several chunks; the last one is what is billed)."""
        name = model.removeprefix("models/")
        tally = self._by_model.setdefault(name, _Tally())
        if before is None:
            tally.requests += 1
        tally.usage = tally.usage + usage - (before or Usage())
        price = self.price(name)
        if price is None or tally.cost is None:
            tally.cost = None
            return
        tally.cost += _cost(price, usage) - (_cost(price, before) if before is not None else 0.0)

    def totals(self) -> UsageTotals:
        """A reading of the ledger (immutable; ``UsageTotals.since`` gives the calls between two readings)."""
        return UsageTotals(tuple(ModelUsage(n, t.requests, t.usage, t.cost) for n, t in self._by_model.items()))


def _cost(price: Price, usage: Usage) -> float:
    # Output is the answer and the thoughts, as Google bills them; cached tokens are billed at the full input rate
    # here (the discount is not applied, so the estimate is never below the bill for counted calls).
    return request_cost(price, usage.prompt_tokens, usage.candidates_tokens + usage.thoughts_tokens)


class MeteredClient:
    """A ModelClient whose every request's reported usage goes into ``ledger``; anything else the wrapped client
    offers (``list_models``, ``context_window``, ``warm``…) is its own, passed through."""

    def __init__(self, inner: ModelClient, ledger: UsageLedger) -> None:
        self.inner = inner
        self.ledger = ledger

    async def stream(self, request: GenerateRequest) -> AsyncIterator[ModelChunk]:
        seen: Usage | None = None
        async for chunk in self.inner.stream(request):
            if chunk.usage is not None:
                # Counted as soon as it is reported (before the chunk is handed on), so a reading taken when the
                # response is shown already includes it, and a stream abandoned afterwards still counts.
                self.ledger.update(request.model, chunk.usage, seen)
                seen = chunk.usage
            yield chunk

    async def generate(self, request: GenerateRequest) -> ModelChunk:
        chunk = await self.inner.generate(request)
        if chunk.usage is not None:
            self.ledger.update(request.model, chunk.usage, None)
        return chunk

    async def count_tokens(self, request: GenerateRequest) -> int:
        return await self.inner.count_tokens(request)  # free: not a billed generation

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
