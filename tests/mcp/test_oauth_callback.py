"""The browser side of an MCP sign-in: the localhost listener that catches the authorization answer (its errors
and its timeout said clearly) and opening the user's browser only where there is one."""

from __future__ import annotations

import asyncio
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from agent_lsp.mcp.oauth_callback import CallbackListener, SignInFailed, open_browser


async def _get(url: str) -> tuple[int, str]:
    def fetch() -> tuple[int, str]:
        try:
            with urllib.request.urlopen(url, timeout=10) as page:
                return page.status, page.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    return await asyncio.to_thread(fetch)


async def test_the_listener_catches_the_code_and_ignores_other_paths() -> None:
    listener = CallbackListener()
    await listener.start()
    try:
        assert listener.redirect_uri.startswith("http://127.0.0.1:")
        assert listener.redirect_uri.endswith("/oauth/callback")
        base = listener.redirect_uri.rsplit("/oauth/callback", 1)[0]
        assert (await _get(f"{base}/favicon.ico"))[0] == 404
        assert (await _get(f"{listener.redirect_uri}?code=only"))[0] == 400  # no state: not an answer
        status, page = await _get(f"{listener.redirect_uri}?code=abc&state=xyz&iss=http%3A%2F%2Fas")
        assert status == 200 and "Signed in" in page
        assert await listener.wait(5) == {"code": "abc", "state": "xyz", "iss": "http://as"}
    finally:
        await listener.aclose()


async def test_a_refusal_and_a_timeout_are_clear_errors() -> None:
    listener = CallbackListener()
    await listener.start()
    try:
        await _get(f"{listener.redirect_uri}?error=access_denied&error_description=the+user+said+no")
        with pytest.raises(SignInFailed, match=r"refused the sign-in \(access_denied: the user said no\)"):
            await listener.wait(5)
    finally:
        await listener.aclose()
    quiet = CallbackListener()
    await quiet.start()
    try:
        with pytest.raises(SignInFailed, match=r"no answer from the browser within 0\.2 s"):
            await quiet.wait(0.2)
    finally:
        await quiet.aclose()


async def test_a_configured_redirect_uri_fixes_the_port(monkeypatch: pytest.MonkeyPatch) -> None:
    probe = CallbackListener()
    await probe.start()
    port = int(probe.redirect_uri.split(":")[2].split("/")[0])
    await probe.aclose()
    listener = CallbackListener(f"http://127.0.0.1:{port}/done")
    await listener.start()
    try:
        assert listener.redirect_uri == f"http://127.0.0.1:{port}/done"
        assert (await _get(f"http://127.0.0.1:{port}/done?code=c&state=s"))[0] == 200
    finally:
        await listener.aclose()
    monkeypatch.setenv("OAUTH_CALLBACK_PORT", "not-a-port")
    with pytest.raises(SignInFailed, match="OAUTH_CALLBACK_PORT must be a port number"):
        CallbackListener()


def test_a_browser_opens_only_where_there_is_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    if sys.platform.startswith("linux"):
        assert open_browser("http://127.0.0.1:1/x") is False  # no desktop: the address on stderr is enough
    seen = tmp_path / "seen"
    browser = tmp_path / "browser.py"
    browser.write_text(f"import sys, pathlib\npathlib.Path({str(seen)!r}).write_text(sys.argv[1])\n")
    monkeypatch.setenv("BROWSER", f"{sys.executable} {browser} %s")
    assert open_browser("http://127.0.0.1:1/page?a=1&b=2") is True
    deadline = time.monotonic() + 30
    while not (seen.exists() and seen.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert seen.read_text() == "http://127.0.0.1:1/page?a=1&b=2"
