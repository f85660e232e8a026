"""The browser side of an MCP sign-in: the localhost listener that catches the authorization code, and opening
the user's browser where there is one."""

from __future__ import annotations

import asyncio
import contextlib
import html
import os
import shlex
import subprocess
import sys
import threading
from urllib.parse import parse_qs, urlsplit

from agent_lsp.child_env import ChildEnv

CALLBACK_PATH = "/oauth/callback"  # Gemini CLI's path
_PAGE = "<!doctype html><title>agent-lsp</title><h1>{title}</h1><p>{text}</p>"


class SignInFailed(Exception):
    """The sign-in did not complete: the message says why, for a person."""


class CallbackListener:
    """Listens on the redirect URI's port (else ``OAUTH_CALLBACK_PORT``, else a free one) for one authorization
    response; ``redirect_uri`` is known once ``start`` returned."""

    def __init__(self, redirect_uri: str | None = None) -> None:
        parts = urlsplit(redirect_uri) if redirect_uri else None
        self._host = (parts.hostname if parts else None) or "127.0.0.1"
        self._path = (parts.path if parts else "") or CALLBACK_PATH
        self._fixed = redirect_uri
        port = parts.port if parts else None
        env_port = os.environ.get("OAUTH_CALLBACK_PORT")
        if port is None and env_port:
            if not env_port.isdigit() or not 0 < int(env_port) < 65536:
                raise SignInFailed(f"OAUTH_CALLBACK_PORT must be a port number (got {env_port!r})")
            port = int(env_port)
        self._port = port or 0
        self._server: asyncio.Server | None = None
        self._answer: asyncio.Future[dict[str, str]] | None = None
        self.redirect_uri = ""

    async def start(self) -> None:
        self._answer = asyncio.get_running_loop().create_future()
        try:
            self._server = await asyncio.start_server(self._serve, self._host, self._port)
        except OSError as exc:
            raise SignInFailed(f"cannot listen for the sign-in on {self._host}:{self._port}: {exc.strerror}") from exc
        port = self._server.sockets[0].getsockname()[1]
        self.redirect_uri = self._fixed or f"http://{self._host}:{port}{self._path}"

    async def wait(self, timeout_s: float) -> dict[str, str]:
        """The query parameters the browser brought back (code, state, iss); SignInFailed on an error or timeout."""
        assert self._answer is not None, "start() first"
        try:
            async with asyncio.timeout(timeout_s):
                return await asyncio.shield(self._answer)
        except TimeoutError:
            raise SignInFailed(f"no answer from the browser within {timeout_s:g} s") from None

    async def aclose(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
        if self._answer is not None and not self._answer.done():
            self._answer.cancel()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(10):
                request_line = await reader.readline()
                while (await reader.readline()).strip():  # headers: not needed
                    pass
            status, title, text = self._handle(request_line.decode("latin-1"))
            body = _PAGE.format(title=html.escape(title), text=html.escape(text)).encode()
            head = f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
            writer.write(head.encode() + b"Connection: close\r\n\r\n" + body)
            await writer.drain()
        except (TimeoutError, OSError):
            pass
        finally:
            writer.close()

    def _handle(self, request_line: str) -> tuple[str, str, str]:
        parts = request_line.split()
        target = urlsplit(parts[1]) if len(parts) >= 2 else None
        if target is None or target.path != self._path:
            return "404 Not Found", "Not found", "This address only takes a sign-in answer."
        query = {k: v[0] for k, v in parse_qs(target.query).items()}
        answer = self._answer
        if answer is None or answer.done():
            return "409 Conflict", "Already answered", "This sign-in was already answered; close this window."
        if "error" in query:
            reason = query["error"] + (f": {query['error_description']}" if query.get("error_description") else "")
            answer.set_exception(SignInFailed(f"the server refused the sign-in ({reason})"))
            return "200 OK", "Sign-in failed", reason
        if not query.get("code") or not query.get("state"):
            return "400 Bad Request", "Sign-in failed", "The answer has no code or state."
        answer.set_result(query)
        return "200 OK", "Signed in", "You can close this window and go back to your editor."


async def open_in_browser(url: str) -> None:
    """:func:`open_browser` off the event loop (the default way to show a sign-in page)."""
    await asyncio.to_thread(open_browser, url)


def open_browser(url: str) -> bool:
    """Open ``url`` in the user's browser if there is one to open (``BROWSER``, else the desktop's opener when a
    desktop is present); never a console browser, which would take over our terminal. False when none was."""
    command: list[str] | None = None
    browser = os.environ.get("BROWSER", "").split(os.pathsep)[0].strip()
    if browser:
        words = shlex.split(browser)
        command = [w.replace("%s", url) for w in words] if "%s" in browser else [*words, url]
    elif sys.platform == "darwin":
        command = ["open", url]
    elif sys.platform == "win32":
        os.startfile(url)  # type: ignore[attr-defined]  # Windows only
        return True
    elif os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        command = ["xdg-open", url]
    if command is None:
        return False
    try:
        proc = subprocess.Popen(  # the user's own browser command
            command,
            env=ChildEnv().filter(os.environ, scan=False),  # the browser needs no key of ours either
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return False
    threading.Thread(target=proc.wait, name="browser-opener", daemon=True).start()  # reaped, never awaited
    return True
