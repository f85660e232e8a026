"""web_fetch: fetches the http(s) URLs named in a prompt and returns their readable text for the model."""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Collection
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from agent_lsp.errors import ToolError
from agent_lsp.events import ConfirmationDetails
from agent_lsp.tools.base import OutputSink, Tool, ToolInvocation, ToolResult
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.shell import wrap_untrusted

if TYPE_CHECKING:
    import httpx

MAX_URLS = 20
MAX_BYTES = 2 * 1024 * 1024
TIMEOUT_S = 10.0
MAX_REDIRECTS = 5
MAX_TEXT_CHARS = 100_000  # for all URLs together, shared evenly
USER_AGENT = "agent-lsp-web-fetch/0.1"

_URL = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)
_TRAILING = ".,;:!?"
_CLOSERS = {")": "(", "]": "[", "}": "{"}

_DESCRIPTION = """Fetches up to 20 web pages named in `prompt` and returns their text, so you can answer
what the prompt asks about them (summarise, extract, compare...).

Put the full http:// or https:// URLs in the prompt together with the question, for example:
"Summarise https://example.com/a and list the differences from https://example.com/b".
HTML is converted to plain text (scripts and styles dropped, links kept as "text (url)"); GitHub file
links (github.com/.../blob/...) are fetched as raw files. Each page is capped at 2 MB and 10 seconds.
Addresses on the local machine or private networks are refused."""


def extract_urls(prompt: str) -> list[str]:
    """The distinct http(s) URLs in ``prompt``, in order, without trailing sentence punctuation."""
    found: list[str] = []
    for match in _URL.finditer(prompt):
        url = match.group(0)
        while url:
            last = url[-1]
            if last in _TRAILING or (last in _CLOSERS and url.count(_CLOSERS[last]) < url.count(last)):
                url = url[:-1]
                continue
            break
        if url not in found:
            found.append(url)
    return found


def github_raw_url(url: str) -> str:
    """``github.com/o/r/blob/ref/path`` as its raw.githubusercontent.com address; other URLs unchanged."""
    parts = urlsplit(url)
    if parts.hostname not in ("github.com", "www.github.com"):
        return url
    segments = parts.path.split("/")
    # ['', owner, repo, 'blob', ref, *path]
    if len(segments) >= 6 and segments[3] == "blob":
        path = "/".join(segments[1:3] + segments[4:])
        return f"https://raw.githubusercontent.com/{path}"
    return url


def address_problem(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why fetching from ``ip`` is refused by default (loopback, private, ...), or None for a public one."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_multicast:
        return "multicast"
    if ip.is_private:
        return "private"
    if ip.is_reserved or not ip.is_global:
        return "reserved"
    return None


class _Refused(Exception):
    """A URL the tool will not fetch; the message is for the model."""


@dataclass(frozen=True)
class WebFetchParams:
    prompt: str
    urls: tuple[str, ...]


class WebFetchTool(Tool):
    name = "web_fetch"
    display_name = "WebFetch"
    description = _DESCRIPTION
    kind = "fetch"
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "prompt": {
                "type": "string",
                "description": "The request: the full URL(s) to fetch (at most 20) and what to do with them.",
            }
        },
        "required": ["prompt"],
    }

    def __init__(self, ctx: ToolContext, *, allowed_private_hosts: Collection[str] = ()) -> None:
        self.ctx = ctx
        # host or host:port entries exempt from the private-address refusal (a known intranet server).
        self.allowed_private_hosts = frozenset(h.lower() for h in allowed_private_hosts)
        self.max_bytes = MAX_BYTES
        self.timeout_s = TIMEOUT_S

    def check(self, params: dict[str, Any]) -> str | None:
        prompt = str(params["prompt"])
        if not prompt.strip():
            return "The prompt must not be empty."
        urls = extract_urls(prompt)
        if not urls:
            return "The prompt must contain at least one URL starting with http:// or https://."
        if len(urls) > MAX_URLS:
            return f"The prompt names {len(urls)} URLs; at most {MAX_URLS} can be fetched in one call."
        return None

    def build(self, params: dict[str, Any]) -> WebFetchInvocation:
        problem = self.validate(params)
        if problem:
            raise ToolError(problem, "invalid_params")
        prompt = str(params["prompt"])
        return WebFetchInvocation(WebFetchParams(prompt, tuple(extract_urls(prompt))), self)


class WebFetchInvocation(ToolInvocation[WebFetchParams]):
    def __init__(self, params: WebFetchParams, tool: WebFetchTool) -> None:
        super().__init__(params)
        self.tool = tool

    def describe(self) -> str:
        urls = self.params.urls
        shown = urls[0] if len(urls) == 1 else f"{urls[0]} and {len(urls) - 1} more"
        prompt = self.params.prompt.strip().replace("\n", " ")
        return f"Fetching {shown}: {prompt[:100]}{'...' if len(prompt) > 100 else ''}"

    async def confirmation(self) -> ConfirmationDetails:
        return ConfirmationDetails(type="info", title=self.describe(), prompt=self.params.prompt, urls=self.params.urls)

    async def execute(self, output: OutputSink) -> ToolResult:
        """As Gemini CLI: public URLs go to the Gemini API's URL context tool first; local fetching is the
        fallback when that fails, and the only way to reach private hosts (when the user allowed them)."""
        remote: list[str] = []
        local: list[str] = []
        skipped: list[str] = []
        for url in self.params.urls:
            if not self.tool.ctx.web_fetch_allow_private and not self._allowed_host(url):
                try:
                    await self._check_address(github_raw_url(url))
                except _Refused as exc:
                    skipped.append(f"[Blocked Host] {url}: {exc}")
                    continue
                remote.append(url)
            else:
                local.append(url)
        if not remote and not local:
            message = "All requested URLs were skipped: " + "; ".join(skipped)
            return ToolResult(llm_content=f"Error: {message}", error=message, error_type="web_fetch_processing_error")
        parts: list[str] = []
        display: list[str] = []
        if remote:
            answer = await self._ask_api(remote)
            if answer is None:
                local = [*remote, *local]
            else:
                parts.append(answer)
                display.append("Content processed from prompt.")
        result = await self._fetch_locally(local) if local else None
        if result is not None:
            if not parts:
                result.llm_content = wrap_untrusted(_with_skipped(str(result.llm_content), skipped))
                return result
            parts.append(str(result.llm_content))
            display.append(result.display or "")
        return ToolResult(
            llm_content=wrap_untrusted(_with_skipped("\n\n".join(parts), skipped)), display="\n".join(display)
        )

    def _allowed_host(self, url: str) -> bool:
        parts = urlsplit(github_raw_url(url))
        host = (parts.hostname or "").lower()
        try:
            port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        except ValueError:
            return False
        return host in self.tool.allowed_private_hosts or f"{host}:{port}" in self.tool.allowed_private_hosts

    async def _ask_api(self, urls: list[str]) -> str | None:
        """The model's answer through URL context, with numbered sources; None when it failed or was empty."""
        ctx = self.tool.ctx
        if ctx.model is None:
            return None
        from agent_lsp.errors import ModelError
        from agent_lsp.model.base import Content, GenerateRequest, Part

        prompt = (
            "Follow the user's instructions to process the authorized URLs.\n\n"
            f"<user_instructions>\n{_escape_xml(self.params.prompt)}\n</user_instructions>\n\n"
            "<authorized_urls>\n" + "\n".join(urls) + "\n</authorized_urls>\n"
        )
        request = GenerateRequest(
            model=ctx.model_name,
            contents=(Content(role="user", parts=(Part(text=prompt),)),),
            url_context=True,
            include_thoughts=False,
        )
        try:
            chunk = await ctx.model.generate(request)
        except ModelError:
            return None  # fall back to fetching the pages ourselves
        text = chunk.text.strip()
        if not text and not chunk.sources:
            return None
        if chunk.sources:
            listed = "\n".join(f"[{n}] {s.title} ({s.uri})" for n, s in enumerate(chunk.sources, start=1))
            text += f"\n\nSources:\n{listed}"
        return text

    async def _fetch_locally(self, urls: list[str]) -> ToolResult:
        import httpx

        share = MAX_TEXT_CHARS // len(urls)
        async with httpx.AsyncClient(
            follow_redirects=False,
            timeout=httpx.Timeout(self.tool.timeout_s),
            headers={"User-Agent": USER_AGENT, "Accept": "text/html,text/plain,application/json;q=0.9,*/*;q=0.5"},
        ) as client:
            pages = await asyncio.gather(*(self._page(client, url, share) for url in urls))
        failures = [p for p in pages if p.error]
        sections = [
            "The content of the requested URLs follows. Use it to carry out the request, and cite the sources.",
            f"Request: {self.params.prompt}",
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
            async with asyncio.timeout(self.tool.timeout_s):
                await self._fetch(client, page)
        except _Refused as exc:
            page.error = str(exc)
        except TimeoutError:
            page.error = f"timed out after {self.tool.timeout_s:g} s"
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
                    if len(body) > self.tool.max_bytes:
                        del body[self.tool.max_bytes :]
                        truncated = True
                        break
                text = _to_text(bytes(body), response.headers.get("content-type", ""), current, response.encoding)
                if truncated:
                    page.notes.append(
                        f"[the page is larger than {self.tool.max_bytes} bytes; the rest was not downloaded]"
                    )
                if response.status_code >= 400:
                    page.error = f"HTTP {response.status_code} {response.reason_phrase}".strip()
                    snippet = text.strip()[:500]
                    if snippet:
                        page.error += f"; the server said: {snippet}"
                page.text = text
                return
        raise _Refused(f"more than {MAX_REDIRECTS} redirects")

    async def _check_address(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme.lower() not in ("http", "https"):
            raise _Refused(f"only http and https URLs can be fetched, not {parts.scheme or 'this'}: {url}")
        host = (parts.hostname or "").lower()
        if not host:
            raise _Refused(f"no host name in {url}")
        if self.tool.ctx.web_fetch_allow_private:
            return
        try:
            port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        except ValueError as exc:
            raise _Refused(f"bad port in {url}") from exc
        if host in self.tool.allowed_private_hosts or f"{host}:{port}" in self.tool.allowed_private_hosts:
            return
        try:
            addresses = [ipaddress.ip_address(host)]
        except ValueError:
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except socket.gaierror as exc:
                raise _Refused(f"could not resolve {host}: {exc.strerror or exc}") from exc
            addresses = [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]
        for ip in addresses:
            why = address_problem(ip)
            if why:
                raise _Refused(
                    f"refused to fetch {url}: {host} is a {why} address ({ip}). Fetching from this machine or "
                    "private networks is disabled; the user can allow it in the web fetch settings."
                )


def _with_skipped(text: str, skipped: list[str]) -> str:
    if not skipped:
        return text
    return "[Warning] The following URLs were skipped:\n" + "\n".join(skipped) + "\n\n" + text


def _escape_xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@dataclass
class _Page:
    url: str
    final_url: str
    text: str = ""
    error: str | None = None
    notes: list[str] = field(default_factory=list)


def _to_text(body: bytes, content_type: str, url: str, encoding: str | None) -> str:
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
