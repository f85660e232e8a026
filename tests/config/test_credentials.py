"""The stored sign-in: a user-only file written whole, the key in a real keyring backend when one is there (a
file-backed one under the test's HOME here, never the developer's), and nothing left behind by logout."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from agent_lsp.config.credentials import CredentialError, CredentialStore, SignIn

KEY = "sk-stored-secret-42"


def test_without_a_keyring_the_key_lives_in_a_user_only_file(tmp_path: Path) -> None:
    store = CredentialStore(tmp_path / "state" / "credentials.json")
    assert store.load() is None and store.delete() is False
    where = store.save(SignIn("openai", api_key=KEY, base_url="http://127.0.0.1:9/v1", model="coder"))
    assert str(store.path) in where
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.path.parent.stat().st_mode) & 0o077 == 0
    assert json.loads(store.path.read_text())["apiKey"] == KEY
    loaded = store.load()
    assert loaded == SignIn("openai", api_key=KEY, base_url="http://127.0.0.1:9/v1", model="coder")
    assert loaded is not None and KEY not in repr(loaded) and KEY not in loaded.describe()
    assert loaded.variables() == {
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
        "OPENAI_API_KEY": KEY,
        "OPENAI_MODEL": "coder",
    }

    # A looser file from elsewhere is replaced by a 0600 one, not kept at its mode.
    store.path.chmod(0o644)
    store.save(SignIn("gemini", api_key=KEY))
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert store.delete() is True and not store.path.exists() and store.load() is None


def test_a_real_keyring_backend_keeps_the_key_and_logout_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _private_home: Path
) -> None:
    # keyrings.alt's file backend: a real keyring backend, its file under this test's HOME.
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyrings.alt.file.PlaintextKeyring")
    monkeypatch.setenv("XDG_DATA_HOME", str(_private_home / "data"))
    from keyring.core import load_env

    keyring = load_env()  # this test's backend (the library's global one may have been chosen earlier)
    assert keyring is not None
    store = CredentialStore(tmp_path / "credentials.json")
    where = store.save(SignIn("gemini", api_key=KEY))
    assert "OS keyring" in where
    record = json.loads(store.path.read_text())
    assert record["keyring"] is True and "apiKey" not in record and KEY not in store.path.read_text()
    account = str(store.path.resolve())
    assert keyring.get_password("agent-lsp", account) == KEY
    assert CredentialStore(store.path).load() == SignIn("gemini", api_key=KEY)

    # Signing in again without the keyring moves the key to the file and clears the old entry.
    store.save(SignIn("gemini", api_key="second-key"), use_keyring=False)
    assert keyring.get_password("agent-lsp", account) is None
    store.save(SignIn("vertex", project="p", location="us-central1"))  # no secret at all: nothing in the keyring
    assert keyring.get_password("agent-lsp", account) is None
    store.save(SignIn("gemini", api_key=KEY))
    assert store.delete() is True
    assert keyring.get_password("agent-lsp", account) is None and not store.path.exists()


def test_unreadable_records_say_to_sign_in_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = CredentialStore(tmp_path / "credentials.json")
    store.path.write_text("{not json")
    with pytest.raises(CredentialError, match="agent-lsp login"):
        store.load()
    store.path.write_text('{"kind": "password"}')
    with pytest.raises(CredentialError, match="not a sign-in record"):
        store.load()
    # The record says "keyring" but no keyring is usable now (the fail backend): a clear error, not a crash.
    store.path.write_text('{"version": 1, "kind": "gemini", "keyring": true, "stamp": "x"}')
    with pytest.raises(CredentialError, match="no keyring is available"):
        store.load()
    assert store.delete() is True


def test_each_kind_stands_for_the_variables_a_user_would_export() -> None:
    assert SignIn("gemini", api_key=KEY).variables() == {"GEMINI_API_KEY": KEY}
    assert SignIn("vertex", project="p", location="l").variables() == {
        "GOOGLE_GENAI_USE_VERTEXAI": "true",
        "GOOGLE_CLOUD_PROJECT": "p",
        "GOOGLE_CLOUD_LOCATION": "l",
    }
    assert SignIn("vertex", api_key=KEY).variables() == {"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_API_KEY": KEY}
    assert SignIn("openai").variables() == {"OPENAI_BASE_URL": "https://api.openai.com/v1"}


def test_the_vscode_extension_sets_aside_the_same_credential_variables() -> None:
    """The extension clears these from the server's environment when it passes a SecretStorage key; the server
    sets the same ones aside for a stored sign-in (which keeps its own gateway, `login --base-url`). The extension's
    sign-in keeps only a key, so what says where to reach the provider stays in its environment (#39: a gateway
    must survive Sign In). The two lists (Python and TypeScript) must not otherwise drift apart."""
    import re

    from agent_lsp.config.credentials import VARIABLES

    source = (Path(__file__).parents[2] / "vscode-extension" / "src" / "signIn.ts").read_text(encoding="utf-8")
    block = re.search(r"CREDENTIAL_VARIABLES = \[(.*?)\]", source, re.S)
    assert block is not None, "CREDENTIAL_VARIABLES not found in signIn.ts"
    where = {"GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_VERTEX_BASE_URL"}
    assert tuple(re.findall(r'"([A-Z_]+)"', block.group(1))) == tuple(v for v in VARIABLES if v not in where)
