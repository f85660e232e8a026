"""web_fetch's local fetching with httpx: each page bounded in size and time, redirects re-checked hop by hop."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from agent_lsp.tools.base import ToolResult
from agent_lsp.tools.web_fetch_html import body_to_text
from agent_lsp.tools.web_fetch_urls import Refused, check_address, github_raw_url

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
