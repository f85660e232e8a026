"""Model clients for the whole process (the replay script, or one per distinct credentials) and sessions' routers."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Hashable, Mapping
from typing import TYPE_CHECKING

from agent_lsp.runtime.options import RuntimeOptions

if TYPE_CHECKING:
    from agent_lsp.config.settings import ModelSettings
    from agent_lsp.model.base import ModelClient
    from agent_lsp.model.provider import ProviderChoice
    from agent_lsp.model.router import ModelRouter


class ModelClients:
    """Builds each client once: the replay model (one script for the whole process), else one client per
    distinct resolved credentials, so a key read from one workspace's ``.env`` never serves another workspace
    while sessions with the same credentials share a client."""

    def __init__(self, options: RuntimeOptions) -> None:
        self.options = options
        self._replay: ModelClient | None = None
        self._clients: dict[Hashable, ModelClient] = {}
        # Sessions open on worker threads (and LSP's start-up credentials check runs on one): without the lock,
        # two of them could each build "the" client, and a second replay model would start the script over.
        self._lock = threading.Lock()

    def client(self, env: Mapping[str, str] | None = None, choice: ProviderChoice | None = None) -> ModelClient:
        """The replay model when scripted, else the chosen provider's client (raises AuthError saying what to
        set). ``env`` is the environment after ``.env`` files were loaded (users often keep their key in one);
        ``choice`` is the provider resolved with the session's settings (else from ``env`` alone)."""
        script = self.options.fake_responses
        if script is not None:
            with self._lock:
                if self._replay is None:
                    from agent_lsp.model.replay import ReplayModel

                    self._replay = ReplayModel.from_file(script, chunk_delay=self.options.chunk_delay)
                return self._replay
        from agent_lsp.model.provider import resolve_provider

        env = env if env is not None else self.user_env()
        choice = choice or resolve_provider(None, env, self.options.model)
        key = _credentials(choice, env)
        with self._lock:
            client = self._clients.get(key)
            if client is None:
                client = self._clients[key] = build_client(choice, env)
            return client

    def router(self, env: Mapping[str, str], settings: ModelSettings, explicit: str | None) -> tuple[ModelRouter, str]:
        """A session's ModelRouter (its provider and any other one with credentials) and the model it starts with."""
        from agent_lsp.model.router import ModelRouter

        if self.options.fake_responses is not None:
            router = ModelRouter("replay", "--fake-responses", {"replay": lambda: self.client(env)})
            return router, explicit or settings.name
        from agent_lsp.model import provider as prov

        choice = prov.resolve_provider(settings, env, explicit)
        builders: dict[str, Callable[[], ModelClient]] = {choice.provider: lambda: self.client(env, choice)}
        described: dict[str, str] = {}
        limits: dict[str, Callable[[str], int]] = {}
        if choice.openai is not None:
            described["openai"] = choice.openai.describe()
            limits["openai"] = choice.openai.context_window
        if choice.provider == "openai" and prov.gemini_available(env):
            builders["gemini"] = lambda: self.client(env, prov.ProviderChoice("gemini", None, "also available"))
        elif choice.provider == "gemini" and prov.openai_configured(settings, env):
            other = prov.ProviderChoice("openai", None, "also available", prov.openai_config(settings, env))
            assert other.openai is not None
            described["openai"] = other.openai.describe()
            limits["openai"] = other.openai.context_window
            builders["openai"] = lambda: self.client(env, other)
        if "gemini" in builders:
            from agent_lsp.model.auth import resolve_auth

            described["gemini"] = resolve_auth(env).describe()
        router = ModelRouter(choice.provider, choice.reason, builders, described, limits)
        if "gemini" in builders:
            router.gemini_models = _gemini_lister(router)
        return router, choice.model or settings.name

    def user_env(self) -> dict[str, str]:
        """The process environment plus the user-level ``.env`` files (never a workspace's)."""
        from agent_lsp.config.dotenv import load_env_files

        env = dict(self.options.env)
        load_env_files([], trusted=False, env=env)
        return env


def build_client(choice: ProviderChoice, env: Mapping[str, str]) -> ModelClient:
    """The ModelClient for a resolved provider choice (each SDK is imported only when first used)."""
    if choice.provider == "openai":
        from agent_lsp.model.openai_compat import OpenAIClient

        assert choice.openai is not None
        return OpenAIClient(choice.openai)
    from agent_lsp.model.auth import resolve_auth
    from agent_lsp.model.gemini import GeminiClient

    return GeminiClient(resolve_auth(env))


def _credentials(choice: ProviderChoice, env: Mapping[str, str]) -> Hashable:
    """What makes two clients interchangeable: the provider and its resolved credentials and endpoint."""
    if choice.provider == "openai":
        config = choice.openai
        assert config is not None
        limits = tuple(sorted(config.limits.items()))
        return ("openai", config.base_url, config.api_key, config.key_env, config.default_limits, limits)
    from agent_lsp.model.auth import resolve_auth

    return ("gemini", resolve_auth(env))


def _gemini_lister(router: ModelRouter) -> Callable[[], Awaitable[list[str]]]:
    """The Gemini picker: the key's own models when the API lists them, else Gemini CLI 0.61's choices."""

    async def names() -> list[str]:
        from agent_lsp.model.catalog import CHOICE_IDS, list_api_models
        from agent_lsp.model.router import LIST_TIMEOUT_S

        found = await list_api_models(router.client("gemini"), LIST_TIMEOUT_S)
        return [c.id for c in found] if found else list(CHOICE_IDS)

    return names
