"""OAuth for remote MCP servers, end to end: the agent (headless, a real subprocess) against a local OAuth-protected
MCP server built on the MCP SDK's server auth support (tests/mcp/servers/oauth_server.py). A stand-in browser
(``BROWSER``) follows the sign-in page as a user's browser would; the server approves at once."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_lsp.config.credentials import CredentialError
from agent_lsp.mcp.config import McpServerSpec
from agent_lsp.mcp.oauth import sign_in
from agent_lsp.mcp.oauth_store import OAuthTokenStore
from tests.replay_lines import call_line, text_line

from .conftest import Harness, HttpServer, start_http_server

SERVERS = Path(__file__).parent / "servers"


def start_oauth_server(*flags: str) -> HttpServer:
    return start_http_server(*flags, script=SERVERS / "oauth_server.py")


@pytest.fixture(scope="module")
def secure() -> Iterator[HttpServer]:
    """One server for the module (its start costs seconds); tests compare its counts before and after."""
    server = start_oauth_server()
    yield server
    server.stop()


def grown(server: HttpServer, before: dict[str, int]) -> dict[str, int]:
    """How much each of the server's counts grew since ``before``."""
    return {k: v - before.get(k, 0) for k, v in admin(server, "/test/stats").items()}


def admin(server: HttpServer, path: str, method: str = "GET") -> dict[str, Any]:
    request = urllib.request.Request(f"{server.base}{path}", method=method)
    with urllib.request.urlopen(request, timeout=10) as answer:
        result: dict[str, Any] = json.load(answer)
    return result


class Agent:
    """Headless runs of the agent in one HOME, with the stand-in browser and the file credential store."""

    def __init__(self, tmp_path: Path, servers: dict[str, Any]) -> None:
        self.home, self.project = tmp_path / "home", tmp_path / "project"
        for folder in (self.home / ".gemini", self.project):
            folder.mkdir(parents=True)
        (self.home / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": servers}))
        self.browser_log = tmp_path / "browser.log"
        self.script = tmp_path / "script.jsonl"
        lines = [call_line("mcp_secure_echo", {"text": "hello"}), text_line("Done.")]
        self.script.write_text("".join(json.dumps(line) + "\n" for line in lines))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "OPENAI"))}
        env.update(
            HOME=str(self.home),
            AGENT_LSP_HOME=str(self.home / ".agent-lsp"),
            AGENT_LSP_TRUST_WORKSPACE="true",
            BROWSER=f"{sys.executable} {SERVERS / 'oauth_browser.py'}",
            OAUTH_BROWSER_LOG=str(self.browser_log),
        )
        env.pop("DISPLAY", None)
        self.env = env

    @property
    def token_file(self) -> Path:
        return self.home / ".agent-lsp" / "mcp-oauth.json"

    def run(self, prompt: str = "go") -> tuple[list[dict[str, Any]], str]:
        argv = [sys.executable, "-m", "agent_lsp", "run", "--fake-responses", str(self.script), "-o", "stream-json"]
        done = subprocess.run(
            [*argv, prompt], cwd=self.project, env=self.env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return [json.loads(line) for line in done.stdout.splitlines()], done.stderr

    def browser_visits(self) -> int:
        return len(self.browser_log.read_text().splitlines()) if self.browser_log.exists() else 0


def _tool_result(events: list[dict[str, Any]]) -> dict[str, Any]:
    [result] = [e for e in events if e["type"] == "tool_result"]
    return result


def test_sign_in_reuse_refresh_and_a_revoked_token(secure: HttpServer, tmp_path: Path) -> None:
    url = f"{secure.base}/mcp"
    agent = Agent(tmp_path, {"secure": {"httpUrl": url, "oauth": {"enabled": True}, "trust": True}})
    before = admin(secure, "/test/stats")

    # First run: 401 → discovery → registration → the browser's authorization → token exchange → the call works.
    events, stderr = agent.run()
    assert _tool_result(events)["output"] == "hello (for a signed-in client: True)"
    assert f"MCP server 'secure' needs you to sign in: open {secure.base}/authorize?" in stderr
    assert agent.browser_visits() == 1
    assert grown(secure, before) == {
        "registrations": 1,
        "authorizations": 1,
        "exchanges": 1,
        "refreshes": 0,
        "refused": 0,
    }
    # Stored like other secrets: a user-only file (the keyring is absent here), keyed by the server's URL.
    assert stat.S_IMODE(agent.token_file.stat().st_mode) == 0o600
    servers = json.loads(agent.token_file.read_text())["servers"]
    assert list(servers) == [url]
    access = servers[url]["tokens"]["access_token"]
    assert access not in stderr and access not in json.dumps(events)

    # A restart reuses the stored token: no second authorization, no browser.
    events, stderr = agent.run()
    assert _tool_result(events)["status"] == "success"
    assert "sign in" not in stderr
    assert agent.browser_visits() == 1
    assert grown(secure, before)["authorizations"] == 1

    # An expired token is refreshed with the refresh token before it is sent.
    admin(secure, "/test/expire", "POST")
    record = json.loads(agent.token_file.read_text())
    record["servers"][url]["expiresAt"] = 1.0  # long ago, as if the agent had not run for an hour
    agent.token_file.write_text(json.dumps(record))
    events, _ = agent.run()
    assert _tool_result(events)["status"] == "success"
    stats = grown(secure, before)
    assert (stats["refreshes"], stats["authorizations"], stats["refused"]) == (1, 1, 0)
    assert agent.browser_visits() == 1

    # A revoked token: a clear error naming the server and the command, and no sign-in nobody asked for; the
    # command then signs in again and reconnects the server (one run: the failure is reported at start-up).
    admin(secure, "/test/revoke", "POST")
    events, stderr = agent.run("/mcp auth secure")
    expected = (
        "MCP server 'secure' failed to start: it refused the stored OAuth token: sign in again with `/mcp auth secure`"
    )
    assert expected in stderr
    said = "".join(e.get("content", "") for e in events if e["type"] == "message" and e.get("role") == "assistant")
    assert "Signed in to MCP server 'secure'; reconnected: connected." in said, (events, stderr)
    assert stderr.index(expected) < stderr.index("needs you to sign in")
    assert agent.browser_visits() == 2
    assert grown(secure, before)["authorizations"] == 2


async def test_a_server_asking_for_a_token_names_mcp_auth_and_opens_no_browser(
    secure: HttpServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_LSP_HOME", str(tmp_path / "state"))
    opened: list[McpServerSpec] = []

    async def sign_in(spec: McpServerSpec) -> None:
        opened.append(spec)

    before = admin(secure, "/test/stats")
    h = Harness([McpServerSpec("secure", http_url=f"{secure.base}/mcp")], tmp_path, sign_in=sign_in)
    h.manager.start()
    try:
        await h.manager.wait_ready(30)
        assert h.manager.status()["secure"] == ("failed: it requires authentication: sign in with `/mcp auth secure`")
        assert opened == []  # no sign-in: the server has no `oauth.enabled`
        await h.manager.aclose()
        stale = McpServerSpec("stale", http_url=f"{secure.base}/mcp", headers={"Authorization": "Bearer old"})
        h = Harness([stale], tmp_path, sign_in=sign_in)
        h.manager.start()
        await h.manager.wait_ready(30)
        assert h.manager.status()["stale"] == (
            "failed: it refused the Authorization header of its settings; fix it, or sign in with `/mcp auth stale`"
        )
        assert grown(secure, before)["registrations"] == 0  # nothing registered without the user's say
    finally:
        await h.manager.aclose()


def test_tokens_are_kept_per_server_url(tmp_path: Path) -> None:
    store = OAuthTokenStore(tmp_path / "tokens.json")
    store.save("http://a.example/mcp", {"tokens": {"access_token": "A", "token_type": "Bearer"}})
    assert store.load("http://a.example/mcp") == {"tokens": {"access_token": "A", "token_type": "Bearer"}}
    assert store.load("http://b.example/mcp") is None
    assert store.load("http://a.example/mcp/") is None
    assert store.delete("http://a.example/mcp")
    assert store.load("http://a.example/mcp") is None


async def test_sign_in_then_a_token_revoked_mid_session_fails_the_call_naming_mcp_auth(
    secure: HttpServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_LSP_HOME", str(tmp_path / "state"))
    spec = McpServerSpec("secure", http_url=f"{secure.base}/mcp")
    pages: list[str] = []

    async def browser(url: str) -> None:  # the user's browser: follows the page's redirects back to the agent
        pages.append(url)
        await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=30).read())

    await sign_in(spec, browser)
    assert len(pages) == 1 and pages[0].startswith(f"{secure.base}/authorize?")
    h = Harness([spec], tmp_path)
    h.manager.start()
    try:
        await h.manager.wait_ready(30)
        assert h.manager.status()["secure"] == "connected"
        assert (await h.call("secure", "echo", text="one")).error is None
        admin(secure, "/test/revoke", "POST")
        refused = await h.call("secure", "echo", text="two")
        assert refused.error is not None
        assert "it refused the stored OAuth token: sign in again with `/mcp auth secure`" in refused.error
    finally:
        await h.manager.aclose()


def test_with_a_real_keyring_the_file_only_says_where_the_tokens_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _private_home: Path
) -> None:
    # keyrings.alt's file backend: a real keyring backend, its file under this test's HOME.
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyrings.alt.file.PlaintextKeyring")
    monkeypatch.setenv("XDG_DATA_HOME", str(_private_home / "data"))
    from keyring.core import load_env

    keyring = load_env()
    assert keyring is not None
    store = OAuthTokenStore(tmp_path / "tokens.json")
    entry = {"tokens": {"access_token": "secret-access", "refresh_token": "secret-refresh"}, "expiresAt": 5.0}
    store.save("http://a.example/mcp", entry)
    assert json.loads(store.path.read_text()) == {"version": 1, "servers": {"http://a.example/mcp": {"keyring": True}}}
    assert "secret" not in store.path.read_text()
    assert json.loads(keyring.get_password("agent-lsp-mcp-oauth", "http://a.example/mcp")) == entry
    assert store.load("http://a.example/mcp") == entry
    assert store.delete("http://a.example/mcp")
    assert keyring.get_password("agent-lsp-mcp-oauth", "http://a.example/mcp") is None


def test_a_broken_token_file_says_what_to_do(tmp_path: Path) -> None:
    store = OAuthTokenStore(tmp_path / "tokens.json")
    store.path.write_text("{not json")
    with pytest.raises(CredentialError, match=r"tokens\.json is not valid JSON: delete it and sign in again"):
        store.load("http://a.example/mcp")


async def test_an_sse_server_signs_in_and_connects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_LSP_HOME", str(tmp_path / "state"))
    server = start_oauth_server("--sse")
    try:
        spec = McpServerSpec("events", url=f"{server.base}/sse")

        async def browser(url: str) -> None:
            await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=30).read())

        await sign_in(spec, browser)
        h = Harness([spec], tmp_path)
        h.manager.start()
        try:
            await h.manager.wait_ready(30)
            assert h.manager.status()["events"] == "connected"
            result = await h.call("events", "echo", text="over SSE")
            assert result.error is None and "over SSE (for a signed-in client: True)" in str(result.llm_content)
        finally:
            await h.manager.aclose()
        assert grown(server, {})["authorizations"] == 1
    finally:
        server.stop()
