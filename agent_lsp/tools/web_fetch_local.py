"""web_fetch's local fetching with httpx (each page bounded in size and time, redirects re-checked hop by hop) and its
page reading: response bytes to text, HTML to readable plain text (stdlib HTMLParser). Imported by the first call."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from agent_lsp.tools.base import ToolResult
from agent_lsp.tools.web_fetch_urls import Refused, check_address, github_raw_url


def body_to_text(body: bytes, content_type: str, url: str, encoding: str | None) -> str:
    """A response body as text: HTML made readable, other text decoded, binary content only described."""
    mime = content_type.split(";", 1)[0].strip().lower()
    head = body[:512].lstrip().lower()
    looks_html = head.startswith((b"<!doctype html", b"<html"))
    is_text = (
        not mime
        or mime.startswith("text/")
        or any(k in mime for k in ("json", "xml", "javascript", "yaml", "toml", "markdown"))
    )
    if not is_text and not looks_html:
        return f"[{mime} content, {len(body)} bytes, not shown as text]"
    try:
        decoded = body.decode(encoding or "utf-8", errors="replace")
    except LookupError:
        decoded = body.decode("utf-8", errors="replace")
    if "html" in mime or (looks_html and "xml" not in mime):
        return html_to_text(decoded, base_url=url)
    return decoded


_SKIP = frozenset({"script", "style", "noscript", "template", "svg", "iframe", "object", "canvas"})
_BLOCK = frozenset(
    {
        "p", "div", "br", "ul", "ol", "table", "tr", "section", "article", "header", "footer", "nav", "main",
        "aside", "blockquote", "pre", "hr", "dl", "dt", "dd", "form", "figure", "figcaption", "li",
        "h1", "h2", "h3", "h4", "h5", "h6", "title", "body", "details", "summary",
    }
)  # fmt: skip


class _HtmlText(HTMLParser):
    """HTML as readable plain text: blocks on their own lines, links as "text (url)", no scripts or styles."""

    def __init__(self, base_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base_url = base_url
        self.out: list[str] = []
        self.skip_depth = 0
        self.in_head = False
        self.pre_depth = 0
        self.title: list[str] | None = None
        self.titles: list[str] = []
        self.link_href: str | None = None
        self.link_text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self.title = []
            return
        if tag == "head":
            self.in_head = True
        elif tag == "body":
            self.in_head = False  # a document may never close its head
        if tag in _SKIP:
            self.skip_depth += 1
            return
        if self.skip_depth or self.in_head:
            return
        if tag in _BLOCK:
            self._newline(2 if tag in ("p", "h1", "h2", "h3", "h4", "h5", "h6", "table", "pre") else 1)
        if tag == "pre":
            self.pre_depth += 1
        elif tag == "li":
            self._emit("- ")
        elif tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._emit("#" * int(tag[1]) + " ")
        elif tag in ("td", "th"):
            self._emit(" ")
        elif tag == "a":
            self.link_href = dict(attrs).get("href") or ""
            self.link_text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            if self.title is not None:
                self.titles.append(" ".join("".join(self.title).split()))
            self.title = None
            return
        if tag == "head":
            self.in_head = False
        if tag in _SKIP:
            self.skip_depth = max(0, self.skip_depth - 1)
            return
        if self.skip_depth or self.in_head:
            return
        if tag == "a" and self.link_href is not None:
            self._finish_link()
        elif tag == "pre":
            self.pre_depth = max(0, self.pre_depth - 1)
        if tag in _BLOCK:
            self._newline(1)

    def handle_data(self, data: str) -> None:
        if self.title is not None:
            self.title.append(data)
            return
        if self.skip_depth or self.in_head:
            return
        if not self.pre_depth:
            data = re.sub(r"\s+", " ", data)
        if self.link_href is not None:
            self.link_text.append(data)
        else:
            self._emit(data)

    def _finish_link(self) -> None:
        href = self.link_href or ""
        text = " ".join("".join(self.link_text).split())
        self.link_href = None
        url = urljoin(self.base_url, href) if href and not href.startswith(("#", "javascript:")) else ""
        if url and text and text != url:
            self._emit(f"{text} ({url})")
        else:
            self._emit(text or url)

    def _emit(self, text: str) -> None:
        if not self.pre_depth and (not self.out or self.out[-1].endswith("\n")):
            text = text.lstrip(" ")
        if text:
            self.out.append(text)

    def _newline(self, count: int) -> None:
        joined_tail = "".join(self.out[-3:])
        have = len(joined_tail) - len(joined_tail.rstrip("\n"))
        if self.out and have < count:
            self.out.append("\n" * (count - have))

    def text(self) -> str:
        if self.link_href is not None:
            self._finish_link()
        body = "".join(self.out)
        lines = [line.rstrip() for line in body.split("\n")]
        text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
        if self.titles and self.titles[0]:
            text = f"Title: {self.titles[0]}\n\n{text}"
        return text


def html_to_text(html: str, *, base_url: str = "") -> str:
    """Readable text of an HTML document (see :class:`_HtmlText`)."""
    parser = _HtmlText(base_url)
    parser.feed(html)
    parser.close()
    return parser.text()


if TYPE_CHECKING:  # httpx is imported on the first local fetch, not when the tool registry is built
    import httpx

MAX_REDIRECTS = 5
MAX_TEXT_CHARS = 100_000  # for all URLs together, shared evenly
USER_AGENT = "agent-lsp-web-fetch/0.1"


@dataclass
class _Page:
    url: str
    final_url: str
    text: str = ""
    error: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class LocalFetcher:
    """Fetches pages from this machine, with the limits and address rules of one tool call."""

    prompt: str
    timeout_s: float
    max_bytes: int
    allow_private: bool
    allowed_private_hosts: frozenset[str]

    async def fetch_all(self, urls: list[str]) -> ToolResult:
        """Every URL fetched at once; one page's failure is reported beside the others' text."""
        import httpx

        share = MAX_TEXT_CHARS // len(urls)
        async with httpx.AsyncClient(
            follow_redirects=False,
            timeout=httpx.Timeout(self.timeout_s),
            headers={"User-Agent": USER_AGENT, "Accept": "text/html,text/plain,application/json;q=0.9,*/*;q=0.5"},
        ) as client:
            pages = await asyncio.gather(*(self._page(client, url, share) for url in urls))
        failures = [p for p in pages if p.error]
        sections = [
            "The content of the requested URLs follows. Use it to carry out the request, and cite the sources.",
            f"Request: {self.prompt}",
        ]
        for n, page in enumerate(pages, start=1):
            header = f"--- Source {n}: {page.url}"
            if page.final_url != page.url:
                header += f" (fetched from {page.final_url})"
            body = f"Error: {page.error}" if page.error else "\n".join([page.text, *page.notes])
            sections.append(f"{header} ---\n{body}")
        display_lines = [f"{'✗' if p.error else '✓'} {p.url}" + (f": {p.error}" if p.error else "") for p in pages]
        result = ToolResult(llm_content="\n\n".join(sections), display="\n".join(display_lines))
        if len(failures) == len(pages):
            result.error = "Could not fetch " + "; ".join(f"{p.url}: {p.error}" for p in pages)
            result.error_type = "web_fetch_failed"
        return result

    async def _page(self, client: httpx.AsyncClient, url: str, share: int) -> _Page:
        import httpx

        target = github_raw_url(url)
        page = _Page(url=url, final_url=target)
        try:
            async with asyncio.timeout(self.timeout_s):
                await self._fetch(client, page)
        except Refused as exc:
            page.error = str(exc)
        except TimeoutError:
            page.error = f"timed out after {self.timeout_s:g} s"
        except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError, OSError) as exc:
            # A network failure is this URL's failure only; the other pages still count.
            page.error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if not page.error and len(page.text) > share:
            omitted = len(page.text) - share
            page.text = page.text[:share]
            page.notes.append(f"[... {omitted} more characters of this page not shown]")
        return page

    async def _fetch(self, client: httpx.AsyncClient, page: _Page) -> None:
        current = page.final_url
        for _hop in range(MAX_REDIRECTS + 1):
            await self._check_address(current)
            page.final_url = current
            async with client.stream("GET", current) as response:
                location = response.headers.get("location")
                if response.is_redirect and location:
                    current = urljoin(current, location)
                    continue
                body = bytearray()
                truncated = False
                async for piece in response.aiter_bytes():
                    body.extend(piece)
                    if len(body) > self.max_bytes:
                        del body[self.max_bytes :]
                        truncated = True
                        break
                text = body_to_text(bytes(body), response.headers.get("content-type", ""), current, response.encoding)
                if truncated:
                    page.notes.append(f"[the page is larger than {self.max_bytes} bytes; the rest was not downloaded]")
                if response.status_code >= 400:
                    page.error = f"HTTP {response.status_code} {response.reason_phrase}".strip()
                    snippet = text.strip()[:500]
                    if snippet:
                        page.error += f"; the server said: {snippet}"
                page.text = text
                return
        raise Refused(f"more than {MAX_REDIRECTS} redirects")

    async def _check_address(self, url: str) -> None:
        await check_address(url, allow_private=self.allow_private, allowed_private_hosts=self.allowed_private_hosts)
