"""resolve_auth: which variables win, what a missing credential says, and that keys never show."""

from __future__ import annotations

import pytest

from agent_lsp.errors import AuthError
from agent_lsp.model.auth import AuthConfig, resolve_auth

KEY = "AIzaSy-secret-value-123"


def test_gemini_api_key_wins_over_google_api_key() -> None:
    auth = resolve_auth({"GEMINI_API_KEY": KEY, "GOOGLE_API_KEY": "other"})
    assert (auth.mode, auth.api_key, auth.key_env) == ("api_key", KEY, "GEMINI_API_KEY")


def test_google_api_key_is_the_fallback_and_base_url_is_read() -> None:
    auth = resolve_auth({"GOOGLE_API_KEY": KEY, "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"})
    assert (auth.api_key, auth.key_env, auth.base_url) == (KEY, "GOOGLE_API_KEY", "http://127.0.0.1:9")


def test_blank_values_count_as_missing() -> None:
    with pytest.raises(AuthError):
        resolve_auth({"GEMINI_API_KEY": "  ", "GOOGLE_API_KEY": ""})


def test_vertex_with_project_and_location() -> None:
    auth = resolve_auth(
        {"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "proj", "GOOGLE_CLOUD_LOCATION": "us-central1"}
    )
    assert (auth.mode, auth.project, auth.location, auth.api_key) == ("vertex", "proj", "us-central1", None)
    assert "proj" in auth.describe()


def test_vertex_express_uses_google_api_key() -> None:
    auth = resolve_auth({"GOOGLE_GENAI_USE_VERTEXAI": "True", "GOOGLE_API_KEY": KEY})
    assert (auth.mode, auth.api_key, auth.project) == ("vertex", KEY, None)


def test_missing_credentials_say_what_to_set() -> None:
    with pytest.raises(AuthError) as info:
        resolve_auth({"PATH": "/usr/bin"})
    message = str(info.value)
    assert "\n" not in message
    for hint in ("GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT", "--fake-responses"):
        assert hint in message


def test_incomplete_vertex_config_names_the_missing_pieces() -> None:
    with pytest.raises(AuthError) as info:
        resolve_auth({"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "proj", "GEMINI_API_KEY": KEY})
    message = str(info.value)
    assert "GOOGLE_CLOUD_LOCATION" in message and "GOOGLE_API_KEY" in message
    assert KEY not in message


def test_repr_and_describe_mask_the_key() -> None:
    auth = resolve_auth({"GEMINI_API_KEY": KEY})
    for text in (repr(auth), str(auth), f"{auth}", auth.describe(), repr([auth])):
        assert KEY not in text
    assert "***" in repr(auth)
    assert "GEMINI_API_KEY" in auth.describe()
    assert "api_key=None" in repr(AuthConfig(mode="vertex", project="p", location="l"))
