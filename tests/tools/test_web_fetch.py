"""Tests for web_fetch against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.web_fetch import WebFetchTool
from agent_lsp.tools.web_fetch_local import html_to_text
from agent_lsp.tools.web_fetch_urls import extract_urls, github_raw_url
from agent_lsp.workspace.filesystem import LocalFileSystem
from agent_lsp.workspace.roots import Workspace

PAGE = """<!DOCTYPE html>
<html><head><title>Test  Page</title><style>body { color: red }</style>
<script>var secret = "do not show";</script></head>
<body>
<h1>Welcome</h1>
<p>Some   <b>bold</b>
text &amp; more.</p>
<ul><li>first item</li><li>second <a href="/other.html">other page</a></li></ul>
<p><a href="https://example.org/x">https://example.org/x</a> and <a href="#top">top</a></p>
<pre>keep   this
  spacing</pre>
<noscript>enable js</noscript>
</body></html>"""


class Handler(BaseHTTPRequestHandler):
    requests: list[str] = []  # shared request log, reset per server

    def log_message(self, format: str, *args: object) -> None:
        pass  # keep test output quiet

    def _send(self, status: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        Handler.requests.append(self.path)
        port = self.server.server_address[1]
        if self.path == "/page.html":
            self._send(200, PAGE.encode(), "text/html; charset=utf-8")
        elif self.path == "/latin1.txt":
            self._send(200, "café".encode("latin-1"), "text/plain; charset=iso-8859-1")
        elif self.path == "/data.json":
            self._send(200, b'{"answer": 42}', "application/json")
        elif self.path == "/image.png":
            self._send(200, b"\x89PNG\r\n\x1a\n" + bytes(100), "image/png")
        elif self.path == "/big":
            self._send(200, b"0123456789" * 300_000, "text/plain")
        elif self.path == "/missing":
            self._send(404, b"no such page", "text/plain")
        elif self.path == "/to-page":
            self._send(302, b"", "text/plain", {"Location": "/page.html"})
        elif self.path == "/to-metadata":
            self._send(302, b"", "text/plain", {"Location": "http://169.254.169.254/latest/meta-data/"})
        elif self.path == "/to-localhost":
            self._send(302, b"", "text/plain", {"Location": f"http://localhost:{port}/page.html"})
        elif self.path == "/slow":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"start")
            self.wfile.flush()
            time.sleep(2)
        else:
            self._send(404, b"", "text/plain")


@pytest.fixture
def server() -> Iterator[str]:
    Handler.requests = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(Workspace([tmp_path]), LocalFileSystem(), tmp_path / "tmp")


async def fetch(tool: WebFetchTool, prompt: str) -> tuple[str, str | None]:
    assert tool.validate({"prompt": prompt}) is None
    result = await tool.build({"prompt": prompt}).execute(lambda _c: None)
    assert isinstance(result.llm_content, str)
    return result.llm_content, result.error


def test_extract_urls() -> None:
    prompt = "Compare https://a.example/x?y=1, (see http://b.example/page) and https://a.example/x?y=1."
    assert extract_urls(prompt) == ["https://a.example/x?y=1", "http://b.example/page"]
    assert extract_urls("wiki https://en.wikipedia.org/wiki/Foo_(bar) ok") == [
        "https://en.wikipedia.org/wiki/Foo_(bar)"
    ]
    assert extract_urls("ftp://x.example and no web urls") == []


def test_validate_needs_one_to_twenty_urls(ctx: ToolContext) -> None:
    tool = WebFetchTool(ctx)
    assert "at least one URL" in (tool.validate({"prompt": "summarise the docs"}) or "")
    many = " ".join(f"https://example.com/{i}" for i in range(21))
    assert "at most 20" in (tool.validate({"prompt": many}) or "")
    assert tool.validate({"prompt": " ".join(f"https://example.com/{i}" for i in range(20))}) is None


def test_github_blob_urls_become_raw() -> None:
    assert (
        github_raw_url("https://github.com/owner/repo/blob/main/src/app.py")
        == "https://raw.githubusercontent.com/owner/repo/main/src/app.py"
    )
    assert github_raw_url("https://github.com/owner/repo") == "https://github.com/owner/repo"
    assert github_raw_url("https://example.com/a/b/blob/c/d") == "https://example.com/a/b/blob/c/d"


def test_html_to_text() -> None:
    text = html_to_text(PAGE, base_url="http://site.test/dir/index.html")
    assert text.startswith("Title: Test Page\n")
    assert "secret" not in text and "color" not in text and "enable js" not in text
    assert "# Welcome" in text
    assert "Some bold text & more." in text
    assert "- first item" in text
    assert "- second other page (http://site.test/other.html)" in text
    assert "https://example.org/x and top" in text
    assert "keep   this\n  spacing" in text


async def test_private_address_refused_by_default(ctx: ToolContext, server: str) -> None:
    text, error = await fetch(WebFetchTool(ctx), f"Summarise {server}/page.html")
    assert error is not None and "loopback" in error and "refused" in error
    assert "127.0.0.1" in text
    assert Handler.requests == []  # nothing was sent


async def test_localhost_name_is_resolved_and_refused(ctx: ToolContext, server: str) -> None:
    port = server.rsplit(":", 1)[1]
    _, error = await fetch(WebFetchTool(ctx), f"read http://localhost:{port}/page.html")
    assert error is not None and "loopback" in error
    assert Handler.requests == []


async def test_allowed_when_configured_and_html_converted(ctx: ToolContext, server: str) -> None:
    ctx.web_fetch_allow_private = True
    text, error = await fetch(WebFetchTool(ctx), f"What does {server}/page.html say?")
    assert error is None
    assert f"Request: What does {server}/page.html say?" in text
    assert f"--- Source 1: {server}/page.html ---" in text
    assert "# Welcome" in text and "secret" not in text
    assert f"other page ({server}/other.html)" in text


async def test_plain_json_and_binary_content(ctx: ToolContext, server: str) -> None:
    ctx.web_fetch_allow_private = True
    text, error = await fetch(
        WebFetchTool(ctx), f"check {server}/latin1.txt {server}/data.json {server}/image.png {server}/missing"
    )
    assert error is None  # some pages worked
    assert "café" in text
    assert '{"answer": 42}' in text
    assert "image/png content, 108 bytes" in text
    assert "Error: HTTP 404 Not Found; the server said: no such page" in text


async def test_same_host_redirect_is_followed(ctx: ToolContext, server: str) -> None:
    ctx.web_fetch_allow_private = True
    text, error = await fetch(WebFetchTool(ctx), f"read {server}/to-page")
    assert error is None
    assert f"(fetched from {server}/page.html)" in text
    assert "# Welcome" in text


async def test_redirect_to_private_address_refused(ctx: ToolContext, server: str) -> None:
    host = server.removeprefix("http://")
    tool = WebFetchTool(ctx, allowed_private_hosts=[host])  # only this one local server is trusted
    _, error = await fetch(tool, f"read {server}/to-metadata")
    assert error is not None and "link-local" in error and "169.254.169.254" in error
    _, error = await fetch(tool, f"read {server}/to-localhost")
    assert error is not None and "loopback" in error
    assert Handler.requests == ["/to-metadata", "/to-localhost"]  # the redirect targets were never requested


async def test_size_cap(ctx: ToolContext, server: str) -> None:
    ctx.web_fetch_allow_private = True
    tool = WebFetchTool(ctx)
    tool.max_bytes = 100_000
    text, error = await fetch(tool, f"read {server}/big")
    assert error is None
    assert "larger than 100000 bytes" in text
    assert len(text) < 110_000
    tool.max_bytes = 2 * 1024 * 1024
    text, _ = await fetch(tool, f"read {server}/big")
    assert "more characters of this page not shown" in text  # the text share for the model is capped too


async def test_time_cap(ctx: ToolContext, server: str) -> None:
    ctx.web_fetch_allow_private = True
    tool = WebFetchTool(ctx)
    tool.timeout_s = 0.5
    started = time.monotonic()
    _, error = await fetch(tool, f"read {server}/slow")
    assert time.monotonic() - started < 1.8
    assert error is not None and "timed out after 0.5 s" in error


async def test_confirmation_is_info_with_urls(ctx: ToolContext) -> None:
    inv = WebFetchTool(ctx).build({"prompt": "compare https://a.example/1 and https://b.example/2"})
    details = await inv.confirmation()
    assert details.type == "info"
    assert details.urls == ("https://a.example/1", "https://b.example/2")
    assert details.prompt == "compare https://a.example/1 and https://b.example/2"
    assert "https://a.example/1 and 1 more" in inv.describe()
