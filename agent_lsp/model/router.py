"""ModelRouter: the providers one session may use, their model lists, and switching between them mid-session.

The session keeps its history whatever answers it (our Content types are neutral), so switching provider is
only a matter of handing the session another ModelClient and model name.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_lsp.errors import AuthError, ModelError
from agent_lsp.model.base import ModelClient
from agent_lsp.model.catalog import CHOICE_IDS
from agent_lsp.model.metered import MeteredClient, UsageLedger

log = logging.getLogger(__name__)

# Offered when the Gemini API's own list is not asked for: Gemini CLI 0.61's choices, from the catalog.
GEMINI_MODELS: tuple[str, ...] = CHOICE_IDS
LIST_TIMEOUT_S = 2.0
PROVIDER_NAMES = {"gemini": "Gemini", "openai": "OpenAI-compatible", "replay": "Replay"}


@dataclass(frozen=True)
class PickerEntry:
    """One entry of a model picker. ``value`` is the model name for the current provider, ``provider:name``
    for another one (choosing it switches provider)."""

    value: str
    name: str
    provider: str


@dataclass
class ModelRouter:
    """Builds (once) and hands out the client of each available provider."""

    provider: str
    reason: str
    builders: Mapping[str, Callable[[], ModelClient]]
    describe_provider: Mapping[str, str] = field(default_factory=dict)
    token_limits: Mapping[str, Callable[[str], int]] = field(default_factory=dict)
    gemini_models: Callable[[], Awaitable[list[str]]] | None = None
    # The session's usage ledger: every client handed out below is metered into it, so each model call made
    # through the session's wiring (main loop, subagents, compression, web tools, sampling) is counted once.
    ledger: UsageLedger = field(default_factory=UsageLedger)
    _clients: dict[str, ModelClient] = field(default_factory=dict)
    _listed: dict[str, list[str]] = field(default_factory=dict)

    @property
    def providers(self) -> list[str]:
        return list(self.builders)

    def client(self, provider: str | None = None) -> ModelClient:
        name = provider or self.provider
        if name not in self._clients:
            self._clients[name] = MeteredClient(self.builders[name](), self.ledger)
        return self._clients[name]

    def token_limit(self, model: str) -> int:
        from agent_lsp.model.catalog import token_limit

        client = self._clients.get(self.provider)
        window = getattr(client, "context_window", None)
        if callable(window):  # an endpoint's client knows what its model list said
            return int(window(model))
        limit = self.token_limits.get(self.provider)
        return limit(model) if limit is not None else token_limit(model)

    def describe(self) -> str:
        """For /stats and the editors: "OpenAI-compatible — http://… (key from OPENAI_API_KEY); chosen by …"."""
        label = PROVIDER_NAMES.get(self.provider, self.provider)
        detail = self.describe_provider.get(self.provider)
        return f"{label}{' — ' + detail if detail else ''} (chosen by {self.reason})"

    def parse(self, value: str) -> tuple[str, str]:
        """``provider:name`` or a bare name (the current provider) → (provider, name); ValueError if unknown."""
        head, sep, rest = value.partition(":")
        if sep and head in PROVIDER_NAMES and rest:
            if head not in self.builders:
                raise ValueError(f"the {PROVIDER_NAMES[head]} provider is not configured (no credentials for it)")
            return head, rest
        return self.provider, value

    def switch(self, value: str) -> tuple[ModelClient, str]:
        """Make ``value``'s provider current; the client and model name the session should use from now on."""
        provider, model = self.parse(value)
        client = self.client(provider)
        if provider != self.provider:
            log.info("switching provider from %s to %s", self.provider, provider)
            self.provider = provider
            self.reason = "the model picker"
        return client, model

    async def _models_of(self, provider: str) -> list[str]:
        if provider in self._listed:
            return self._listed[provider]
        names: list[str] = []
        try:
            if provider == "gemini":
                names = await self.gemini_models() if self.gemini_models is not None else list(GEMINI_MODELS)
            else:
                lister: Any = getattr(self.client(provider), "list_models", None)
                if lister is not None:
                    names = await lister(LIST_TIMEOUT_S)
        except (ModelError, AuthError, TimeoutError) as exc:
            log.info("could not list %s models: %s", provider, exc)
            return []  # not cached: the next picker may find the endpoint up
        self._listed[provider] = names
        return names

    async def choices(self, current: str) -> list[PickerEntry]:
        """The picker: the current provider's models (the current one first if unlisted), then the others'."""
        out: list[PickerEntry] = []
        own = await self._models_of(self.provider)
        if current not in own:
            out.append(PickerEntry(current, current, self.provider))
        out += [PickerEntry(m, m, self.provider) for m in own]
        for other in self.builders:
            if other == self.provider:
                continue
            label = PROVIDER_NAMES.get(other, other)
            out += [PickerEntry(f"{other}:{m}", f"{label}: {m}", other) for m in await self._models_of(other)]
        return out

    async def aclose(self) -> None:
        for client in self._clients.values():
            close = getattr(client, "aclose", None)
            if close is not None:
                try:
                    await close()
                except Exception:  # closing is best effort
                    log.debug("closing a model client failed", exc_info=True)
