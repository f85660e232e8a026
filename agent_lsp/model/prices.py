"""What the catalog's models cost per million tokens, for the usage line's estimate (settings may override).

Google's published pay-as-you-go prices for the Gemini API, in US dollars, as of November 2026; a model missing
here (or an OpenAI-compatible endpoint's model) has no estimate unless settings name its price. Output includes
thinking tokens, as Google bills them; cached-token discounts and audio rates are not applied (docs/models.md#cost
says exactly what the estimate counts).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

LONG_PROMPT = 200_000  # prompts longer than this cost the "long" rates where a model has them
CURRENCY = "USD"


@dataclass(frozen=True)
class Price:
    input: float  # per million prompt tokens
    output: float  # per million output tokens (answer and thoughts)
    long_input: float | None = None
    long_output: float | None = None


PRICES: dict[str, Price] = {
    "gemini-3.1-pro-preview": Price(2.0, 12.0, 4.0, 18.0),
    "gemini-3-pro-preview": Price(2.0, 12.0, 4.0, 18.0),
    "gemini-3-flash-preview": Price(0.5, 3.0),
    "gemini-2.5-pro": Price(1.25, 10.0, 2.5, 15.0),
    "gemini-2.5-flash": Price(0.3, 2.5),
    "gemini-2.5-flash-lite": Price(0.1, 0.4),
}


def price_of(model: str, overrides: Mapping[str, Price] | None = None) -> Price | None:
    """The price of ``model`` (an id as sent to the API): the settings' first, else the table's."""
    name = model.removeprefix("models/")
    if overrides and name in overrides:
        return overrides[name]
    return PRICES.get(name)


def request_cost(price: Price, prompt_tokens: int, output_tokens: int) -> float:
    """The estimated cost in dollars of one model request."""
    long = prompt_tokens > LONG_PROMPT
    per_in = price.long_input if long and price.long_input is not None else price.input
    per_out = price.long_output if long and price.long_output is not None else price.output
    return (prompt_tokens * per_in + output_tokens * per_out) / 1_000_000


def session_prices(settings: Mapping[str, Any]) -> Callable[[str], Price | None]:
    """The price lookup of a session: ``model.prices`` from settings (objects with ``input_per_million`` and
    ``output_per_million``) over the table."""
    overrides = {name: Price(p.input_per_million, p.output_per_million) for name, p in settings.items()}
    return lambda model: price_of(model, overrides)
