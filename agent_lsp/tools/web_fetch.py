"""web_fetch: fetches the http(s) URLs named in a prompt and returns their readable text for the model."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_lsp.errors import ToolError
from agent_lsp.events import ConfirmationDetails
from agent_lsp.tools.base import OutputSink, Tool, ToolInvocation, ToolResult
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.web_fetch_urls import (
    Refused,
    allowed_host,
    check_address,
    extract_urls,
    github_raw_url,
)
from agent_lsp.untrusted import wrap_untrusted

if TYPE_CHECKING:  # fetching locally (and html.parser with it) is imported on the first local fetch
    from agent_lsp.tools.web_fetch_local import LocalFetcher


MAX_URLS = 20
MAX_BYTES = 2 * 1024 * 1024
TIMEOUT_S = 10.0

_DESCRIPTION = """Fetches up to 20 web pages named in `prompt` and returns their text, so you can answer
what the prompt asks about them (summarise, extract, compare...).

Put the full http:// or https:// URLs in the prompt together with the question, for example:
"Summarise https://example.com/a and list the differences from https://example.com/b".
HTML is converted to plain text (scripts and styles dropped, links kept as "text (url)"); GitHub file
links (github.com/.../blob/...) are fetched as raw files. Each page is capped at 2 MB and 10 seconds.
Addresses on the local machine or private networks are refused."""


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
            if not self.tool.ctx.web_fetch_allow_private and not allowed_host(url, self.tool.allowed_private_hosts):
                try:
                    await check_address(
                        github_raw_url(url),
                        allow_private=self.tool.ctx.web_fetch_allow_private,
                        allowed_private_hosts=self.tool.allowed_private_hosts,
                    )
                except Refused as exc:
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
        result = await self._fetcher().fetch_all(local) if local else None
        if result is not None:
            if not parts:
                result.llm_content = wrap_untrusted(_with_skipped(str(result.llm_content), skipped))
                return result
            parts.append(str(result.llm_content))
            display.append(result.display or "")
        return ToolResult(
            llm_content=wrap_untrusted(_with_skipped("\n\n".join(parts), skipped)), display="\n".join(display)
        )

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

    def _fetcher(self) -> LocalFetcher:
        # Built per call from the tool's current limits (tests and settings may change them after start-up).
        # Imported here: most fetches go through the model's URL context, and building a session's tools
        # should not pay for html.parser and the fetcher.
        from agent_lsp.tools.web_fetch_local import LocalFetcher

        tool = self.tool
        allow_private = tool.ctx.web_fetch_allow_private
        return LocalFetcher(
            self.params.prompt, tool.timeout_s, tool.max_bytes, allow_private, tool.allowed_private_hosts
        )


def _with_skipped(text: str, skipped: list[str]) -> str:
    if not skipped:
        return text
    return "[Warning] The following URLs were skipped:\n" + "\n".join(skipped) + "\n\n" + text


def _escape_xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
