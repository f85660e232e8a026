"""Where Gemini credentials come from: the environment, resolved once into a small frozen AuthConfig."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from agent_lsp.errors import AuthError

AuthMode = Literal["api_key", "vertex"]

MISSING_CREDENTIALS = (
    "No Gemini credentials found: run `agent-lsp login` to sign in (see docs/auth.md), or set GEMINI_API_KEY "
    "(get one at https://aistudio.google.com/apikey), "
    "or set GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION "
    "(or GOOGLE_API_KEY for Vertex AI express mode); for an OpenAI-compatible endpoint (Ollama, vLLM, …) set "
    "OPENAI_BASE_URL and OPENAI_MODEL (see docs/models.md); or run with --fake-responses FILE."
)

MISSING_VERTEX = (
    "GOOGLE_GENAI_USE_VERTEXAI=true needs GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION "
    "(with Application Default Credentials), or GOOGLE_API_KEY for Vertex AI express mode."
)


@dataclass(frozen=True, repr=False)
class AuthConfig:
    """How to reach Gemini. ``api_key`` is a secret: it never appears in repr, messages or logs."""

    mode: AuthMode
    api_key: str | None = None
    project: str | None = None
    location: str | None = None
    base_url: str | None = None
    # Which variable the key came from, so error messages can name it without showing it.
    key_env: str | None = None

    def __repr__(self) -> str:
        key = "'***'" if self.api_key else "None"
        return (
            f"AuthConfig(mode={self.mode!r}, api_key={key}, project={self.project!r}, "
            f"location={self.location!r}, base_url={self.base_url!r}, key_env={self.key_env!r})"
        )

    __str__ = __repr__

    def describe(self) -> str:
        """A short, secret-free phrase for logs and messages, e.g. "API key from GEMINI_API_KEY"."""
        if self.mode == "vertex" and not self.api_key:
            return f"Vertex AI project {self.project} in {self.location}"
        where = f" from {self.key_env}" if self.key_env else ""
        prefix = "Vertex AI express API key" if self.mode == "vertex" else "API key"
        return prefix + where


def _get(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None


def resolve_auth(env: Mapping[str, str]) -> AuthConfig:
    """Pick credentials from ``env`` (usually ``os.environ``); raise AuthError saying what to set."""
    use_vertex = (_get(env, "GOOGLE_GENAI_USE_VERTEXAI") or "").lower() in ("true", "1", "yes")
    if use_vertex:
        project = _get(env, "GOOGLE_CLOUD_PROJECT")
        location = _get(env, "GOOGLE_CLOUD_LOCATION")
        base_url = _get(env, "GOOGLE_VERTEX_BASE_URL") or _get(env, "GOOGLE_GEMINI_BASE_URL")
        # The SDK refuses project/location together with a key, so a full project config wins.
        if project and location:
            return AuthConfig(mode="vertex", project=project, location=location, base_url=base_url)
        google_key = _get(env, "GOOGLE_API_KEY")
        if google_key:
            return AuthConfig(mode="vertex", api_key=google_key, base_url=base_url, key_env="GOOGLE_API_KEY")
        raise AuthError(MISSING_VERTEX)
    base_url = _get(env, "GOOGLE_GEMINI_BASE_URL")
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        key = _get(env, name)
        if key:
            return AuthConfig(mode="api_key", api_key=key, base_url=base_url, key_env=name)
    raise AuthError(MISSING_CREDENTIALS)
