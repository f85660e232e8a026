"""``agent-lsp login`` / ``logout`` from scripts: flags and a key on stdin, checked through the real clients against
the fake servers (a refused key stores nothing), and the exit codes a script can act on."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agent_lsp.cli import main
from agent_lsp.config.credentials import CredentialStore, SignIn
from tests.fakes.fake_gemini import FakeGemini
from tests.fakes.fake_openai import FakeOpenAI

KEY = "sk-login-cli-secret"


def _login(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], stdin: str, *argv: str
) -> tuple[int, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main([*argv])
    out, err = capsys.readouterr()
    assert KEY not in out + err
    return code, out + err


def test_an_openai_compatible_endpoint_is_checked_and_its_only_model_taken(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAI(models=["coder", "small"]) as fake:
        url = fake.url
        fake.api_keys = {KEY}
        code, said = _login(monkeypatch, capsys, "wrong\n", "login", "--openai", "--base-url", fake.url)
        assert code == 41 and "refused" in said.lower() and CredentialStore().load() is None
        code, said = _login(monkeypatch, capsys, KEY + "\n", "login", "--openai", "--base-url", fake.url)
        assert code == 42 and "pass --model, one of: coder, small" in said
        code, said = _login(monkeypatch, capsys, KEY + "\n", "login", "--base-url", fake.url, "--model", "coder")
        assert code == 0, said
        assert [r.path for r in fake.requests] == ["/v1/models"] * 3  # one cheap request each, no chat
    assert CredentialStore().load() == SignIn("openai", api_key=KEY, base_url=url, model="coder")
    with FakeOpenAI(models=["only-one"]) as local:  # a local server that needs no key
        url = local.url
        code, said = _login(monkeypatch, capsys, "", "login", "--openai", "--no-key", "--base-url", local.url)
        assert code == 0, said
        assert local.requests[0].api_key == "no-key"
    assert CredentialStore().load() == SignIn("openai", base_url=url, model="only-one")


def test_vertex_express_check_only_and_logout(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeGemini() as fake:
        fake.models = [{"name": "publishers/google/models/gemini-2.5-pro"}]
        fake.api_keys = {KEY}
        code, said = _login(
            monkeypatch, capsys, KEY + "\n", "login", "--vertex", "--base-url", fake.url, "--check-only"
        )
        assert code == 0 and "Checked: Vertex AI express API key" in said, said
        assert CredentialStore().load() is None
        code, said = _login(monkeypatch, capsys, KEY + "\n", "login", "--vertex", "--base-url", fake.url)
        assert code == 0, said
    record = json.loads(CredentialStore().path.read_text())
    assert record["kind"] == "vertex" and record["apiKey"] == KEY
    code, said = _login(monkeypatch, capsys, "", "logout")
    assert code == 0 and "Signed out: removed Vertex AI express API key" in said
    code, said = _login(monkeypatch, capsys, "", "logout")
    assert code == 0 and "No stored sign-in" in said


def test_missing_input_and_unreachable_endpoints_say_what_to_do(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, said = _login(monkeypatch, capsys, "", "login")
    assert code == 42 and "no key given" in said
    code, said = _login(monkeypatch, capsys, "", "login", "--vertex", "--project", "p")
    # The location defaults to us-central1; with no Application Default Credentials here, the check says how to
    # get them.
    assert code == 41 and "project p in us-central1" in said and "gcloud auth application-default login" in said
    with FakeOpenAI() as fake:
        url = fake.url
    code, said = _login(monkeypatch, capsys, KEY + "\n", "login", "--openai", "--base-url", url, "--model", "m")
    assert code == 1 and "--no-check" in said and CredentialStore().load() is None
    code, said = _login(monkeypatch, capsys, KEY + "\n", "login", "--base-url", url, "--model", "m", "--no-check")
    assert code == 0 and CredentialStore().load() == SignIn("openai", api_key=KEY, base_url=url, model="m")
    # The ACP Registry's reading of terminal auth replaces the arguments: `agent-lsp --login` signs in too.
    code, said = _login(monkeypatch, capsys, KEY + "\n", "--login", "--base-url", url, "--model", "r", "--no-check")
    assert code == 0 and CredentialStore().load() == SignIn("openai", api_key=KEY, base_url=url, model="r")
    # Credentials already in the environment come first: the user is told so.
    monkeypatch.setenv("GEMINI_API_KEY", "from-the-environment")
    code, said = _login(monkeypatch, capsys, KEY + "\n", "login", "--no-check")
    assert code == 0 and "API key from GEMINI_API_KEY" in said and "come before this sign-in" in said
