"""Where a session's credentials come from: the environment, then the ``.env`` files trust allows, and the stored
sign-in only when those give none (used whole, never mixed into the environment's own choice of provider)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_lsp.config.credentials import CredentialStore, SignIn
from agent_lsp.config.loader import load_settings
from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.errors import AuthError
from agent_lsp.model.auth import resolve_auth
from agent_lsp.runtime import Runtime, RuntimeOptions
from agent_lsp.runtime.clients import ModelClients
from agent_lsp.runtime.options import SessionSetup


def _signed_in(sign_in: SignIn) -> None:
    CredentialStore().save(sign_in)


def test_the_stored_sign_in_serves_only_when_nothing_else_does(_private_home: Path) -> None:
    clients = ModelClients(RuntimeOptions(env={}))
    with pytest.raises(AuthError, match="agent-lsp login"):
        clients.choose({}, None, None)

    _signed_in(SignIn("gemini", api_key="stored-key"))
    env, choice = clients.choose({}, None, None)
    assert choice.provider == "gemini" and resolve_auth(env).api_key == "stored-key"
    # The environment's key comes first.
    env, choice = clients.choose({"GEMINI_API_KEY": "env-key"}, None, None)
    assert resolve_auth(env).api_key == "env-key"

    # A stored endpoint never overrides the environment's own provider, and is not mixed into it.
    _signed_in(SignIn("openai", api_key="stored-openai", base_url="http://127.0.0.1:9/v1", model="coder"))
    env, choice = clients.choose({"GEMINI_API_KEY": "env-key"}, None, None)
    assert choice.provider == "gemini" and "OPENAI_BASE_URL" not in env
    env, choice = clients.choose({}, None, None)
    assert choice.provider == "openai" and choice.model == "coder" and choice.openai is not None
    assert choice.openai.api_key == "stored-openai"
    # A half-set environment (Vertex asked for, no project) does not work: the sign-in is used whole instead, the
    # stray variables set aside.
    half = {"GOOGLE_GENAI_USE_VERTEXAI": "true", "OPENAI_MODEL": "other", "PATH": "/bin"}
    env, choice = clients.choose(half, None, None)
    assert choice.provider == "openai" and choice.model == "coder" and env["PATH"] == "/bin"
    _signed_in(SignIn("gemini", api_key="stored-key"))
    env, choice = clients.choose(half, None, None)
    assert choice.provider == "gemini" and resolve_auth(env).mode == "api_key"
    # Settings that pick a provider are configuration, not credentials: they stand, and say what is missing.
    settings = load_settings([], trusted=False, env={}, overrides={"model": {"provider": "openai"}}).settings
    with pytest.raises(AuthError, match="OPENAI_API_KEY"):
        clients.choose({}, settings.model, None)


async def test_a_trusted_folder_env_file_comes_before_the_stored_sign_in(tmp_path: Path, _private_home: Path) -> None:
    _signed_in(SignIn("gemini", api_key="stored-key"))
    trusted, other = tmp_path / "trusted", tmp_path / "other"
    for folder in (trusted, other):
        folder.mkdir()
    (trusted / ".env").write_text("GEMINI_API_KEY=folder-key\n")
    runtime = Runtime(RuntimeOptions(env={"HOME": str(_private_home), "AGENT_LSP_TRUST_WORKSPACE": "true"}))
    first = await runtime.open_session(SessionSetup(cwd=trusted, confirmer=AutoConfirmer(), record=False))
    second = await runtime.open_session(SessionSetup(cwd=other, confirmer=AutoConfirmer(), record=False))
    keys = []
    for opening in (first, second):
        handle = await opening.handle()
        keys.append(handle.session.client.auth.api_key)  # type: ignore[attr-defined]
        await handle.aclose()
    # One workspace's key never serves another: the other folder gets the stored sign-in, and says so.
    assert keys == ["folder-key", "stored-key"]
    assert "agent-lsp login" not in first.preview.provider_summary
    assert "API key from GEMINI_API_KEY, from `agent-lsp login`" in second.preview.provider_summary
