"""Which model provider a session uses (Gemini or an OpenAI-compatible endpoint) and how to reach it; no SDK here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

from agent_lsp.errors import AuthError

Provider = Literal["gemini", "openai"]


class ModelLimitSettings(Protocol):
    """One entry of settings ``model.models``: what the user says of a model's limits."""

    @property
    def context_window(self) -> int | None: ...
    @property
    def max_output_tokens(self) -> int | None: ...


class ModelSettings(ModelLimitSettings, Protocol):
    """The slice of settings ``model`` this module reads (config's pydantic ``ModelSettings`` is one); a
    Protocol, so the model layer never imports the configuration layer above it."""

    @property
    def name(self) -> str: ...
    @property
    def provider(self) -> Provider | None: ...
    @property
    def base_url(self) -> str | None: ...
    @property
    def api_key_env(self) -> str | None: ...
    @property
    def models(self) -> Mapping[str, ModelLimitSettings]: ...
    @property
    def model_fields_set(self) -> set[str]: ...


OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
OPENAI_KEY_ENV = "OPENAI_API_KEY"
# Local servers (Ollama, llama.cpp, LM Studio, vLLM without --api-key) ignore the key, but the SDK wants one.
NO_KEY = "no-key"
# Context window assumed for an OpenAI-compatible model the settings say nothing about: most current local and
# hosted coding models have at least this much. docs/models.md tells users to set contextWindow when smaller.
DEFAULT_CONTEXT_WINDOW = 131_072

MISSING_MODEL = (
    "No model chosen for the OpenAI-compatible endpoint {url}: set OPENAI_MODEL (or settings model.name, or "
    "pass --model) to one of the names it serves (GET {url}/models lists them)."
)
MISSING_KEY = (
    "No API key for {url}: set {env} (or point settings model.apiKeyEnv at the variable that holds it). "
    "Local servers such as Ollama need no key once OPENAI_BASE_URL points at them."
)


@dataclass(frozen=True)
class ModelLimits:
    context_window: int | None = None
    max_output_tokens: int | None = None


@dataclass(frozen=True, repr=False)
class OpenAIConfig:
    """How to reach an OpenAI-compatible endpoint. ``api_key`` is a secret: never in repr, messages or logs."""

    base_url: str = OPENAI_DEFAULT_URL
    api_key: str = NO_KEY
    key_env: str | None = None  # where the key came from, so messages can name it
    default_limits: ModelLimits = ModelLimits()
    limits: Mapping[str, ModelLimits] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"OpenAIConfig(base_url={self.base_url!r}, api_key='***', key_env={self.key_env!r})"

    __str__ = __repr__

    def describe(self) -> str:
        key = f"key from {self.key_env}" if self.key_env else "no key"
        return f"OpenAI-compatible endpoint {self.base_url} ({key})"

    def limits_for(self, model: str) -> ModelLimits:
        own = self.limits.get(model, ModelLimits())
        return ModelLimits(
            context_window=own.context_window or self.default_limits.context_window,
            max_output_tokens=own.max_output_tokens or self.default_limits.max_output_tokens,
        )

    def context_window(self, model: str) -> int:
        return self.limits_for(model).context_window or DEFAULT_CONTEXT_WINDOW


@dataclass(frozen=True)
class ProviderChoice:
    """The provider, the model name to start with, and why (shown by /stats and the editors)."""

    provider: Provider
    model: str | None
    reason: str
    openai: OpenAIConfig | None = None


def _get(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None


def _explicit_name(settings: ModelSettings | None) -> str | None:
    if settings is None or "name" not in settings.model_fields_set:
        return None
    return settings.name


def choose_provider(settings: ModelSettings | None, env: Mapping[str, str]) -> tuple[Provider, str]:
    """The provider and the reason: settings ``model.provider`` first, then the OpenAI variables, else Gemini."""
    if settings is not None and settings.provider is not None:
        return settings.provider, "settings model.provider"
    if settings is not None and settings.base_url:
        return "openai", "settings model.baseUrl"
    for name in ("OPENAI_BASE_URL", "OPENAI_MODEL"):
        if _get(env, name):
            return "openai", name
    return "gemini", "default"


def openai_config(settings: ModelSettings | None, env: Mapping[str, str]) -> OpenAIConfig:
    """The endpoint, key and limits from settings and ``env``; raises AuthError when a hosted endpoint has no key."""
    explicit_url = (settings.base_url if settings else None) or _get(env, "OPENAI_BASE_URL")
    base_url = (explicit_url or OPENAI_DEFAULT_URL).rstrip("/")
    key_env = (settings.api_key_env if settings else None) or OPENAI_KEY_ENV
    key = _get(env, key_env)
    if key is None and explicit_url is None:
        raise AuthError(MISSING_KEY.format(url=base_url, env=key_env))
    default = ModelLimits()
    limits: dict[str, ModelLimits] = {}
    if settings is not None:
        default = ModelLimits(settings.context_window, settings.max_output_tokens)
        limits = {n: ModelLimits(m.context_window, m.max_output_tokens) for n, m in settings.models.items()}
    return OpenAIConfig(
        base_url=base_url,
        api_key=key or NO_KEY,
        key_env=key_env if key else None,
        default_limits=default,
        limits=limits,
    )


def resolve_provider(
    settings: ModelSettings | None, env: Mapping[str, str], model: str | None = None
) -> ProviderChoice:
    """The whole choice. ``model`` is the command line's or editor's; for OpenAI, settings ``model.name`` (when set)
    beats OPENAI_MODEL, which agent-lsp shares with other tools. Raises AuthError saying what to set."""
    provider, reason = choose_provider(settings, env)
    if provider == "gemini":
        from agent_lsp.model.auth import resolve_auth

        resolve_auth(env)  # raises with the message saying what to set
        return ProviderChoice("gemini", model or (settings.name if settings else None), reason)
    config = openai_config(settings, env)
    name = model or _explicit_name(settings) or _get(env, "OPENAI_MODEL")
    if name is None:
        raise AuthError(MISSING_MODEL.format(url=config.base_url))
    return ProviderChoice("openai", name, reason, config)


def gemini_available(env: Mapping[str, str]) -> bool:
    """Whether Gemini credentials are present too (google_web_search and the picker's Gemini models need them)."""
    from agent_lsp.model.auth import resolve_auth

    try:
        resolve_auth(env)
    except AuthError:
        return False
    return True


def openai_configured(settings: ModelSettings | None, env: Mapping[str, str]) -> bool:
    """Whether an OpenAI-compatible endpoint is set up beside Gemini (then the picker offers its models too)."""
    if not ((settings is not None and settings.base_url) or _get(env, "OPENAI_BASE_URL") or _get(env, "OPENAI_MODEL")):
        return False
    try:
        openai_config(settings, env)
    except AuthError:
        return False
    return True
