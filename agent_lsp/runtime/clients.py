"""Model clients for the whole process (the replay script, or one per distinct credentials) and sessions' routers;
the stored sign-in (``agent-lsp login``) is the last source of credentials, after the environment and ``.env``."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Hashable, Mapping
from typing import TYPE_CHECKING

from agent_lsp.runtime.options import RuntimeOptions

if TYPE_CHECKING:
    from agent_lsp.config.credentials import CredentialStore
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
        self._store: CredentialStore | None = None

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
        env = env if env is not None else self.user_env()
        if choice is None:
            env, choice = self.choose(env, None, self.options.model)
        key = _credentials(choice, env)
        with self._lock:
            client = self._clients.get(key)
            if client is None:
                client = self._clients[key] = build_client(choice, env)
            return client

    def router(self, env: Mapping[str, str], settings: ModelSettings, explicit: str | None) -> tuple[ModelRouter, str]:
        """A session's ModelRouter (its provider and any other one with credentials) and the model it starts with."""
        from agent_lsp.model.metered import UsageLedger
        from agent_lsp.model.prices import session_prices
        from agent_lsp.model.router import ModelRouter

        ledger = UsageLedger(session_prices(settings.prices))  # the session's; priced as its settings say
        if self.options.fake_responses is not None:
            router = ModelRouter("replay", "--fake-responses", {"replay": lambda: self.client(env)}, ledger=ledger)
            return router, explicit or settings.name
        from agent_lsp.model import provider as prov

        given = env
        env, choice = self.choose(env, settings, explicit)
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
        if env is not given:  # the stored sign-in serves: say so where the editors show the provider
            described = {name: f"{text}, from `agent-lsp login`" for name, text in described.items()}
        router = ModelRouter(choice.provider, choice.reason, builders, described, limits, ledger=ledger)
        if "gemini" in builders:
            router.gemini_models = _gemini_lister(router)
        return router, choice.model or settings.name

    def choose(
        self, env: Mapping[str, str], settings: ModelSettings | None, model: str | None
    ) -> tuple[Mapping[str, str], ProviderChoice]:
        """The provider from ``env`` (the environment after ``.env`` files) and settings; when they give no usable
        credentials, from the stored sign-in, whole: the environment's own credential variables are set aside then.
        Returns the environment the choice was made from; raises AuthError saying what to set."""
        from agent_lsp.errors import AuthError
        from agent_lsp.model.provider import resolve_provider

        try:
            return env, resolve_provider(settings, env, model)
        except AuthError as missing:
            signed_in = self._signed_in()
            if signed_in is None:
                raise
            from agent_lsp.config.credentials import VARIABLES

            merged = {k: v for k, v in env.items() if k not in VARIABLES} | signed_in
            try:
                return merged, resolve_provider(settings, merged, model)
            except AuthError:
                raise missing from None  # the environment's own choice stands; its message says what to set

    def _signed_in(self) -> dict[str, str] | None:
        """The stored sign-in's variables, None when nobody signed in (raises AuthError when it is unreadable)."""
        from agent_lsp.config.credentials import CredentialError, CredentialStore
        from agent_lsp.errors import AuthError

        with self._lock:
            if self._store is None:
                self._store = CredentialStore()
            store = self._store
        try:
            sign_in = store.load()
        except CredentialError as exc:
            raise AuthError(str(exc)) from exc
        return sign_in.variables() if sign_in is not None else None

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
