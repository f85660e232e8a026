"""google_web_search: answers a query through the model's Google Search grounding, with numbered sources."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_lsp.errors import ModelError, ToolError
from agent_lsp.model.base import Content, GenerateRequest, Part
from agent_lsp.tools.base import ContextTool, OutputSink, ToolInvocation, ToolResult
from agent_lsp.tools.context import ToolContext
from agent_lsp.untrusted import wrap_untrusted

_DESCRIPTION = """Searches the web with Google Search and returns a short answer built from the results,
followed by a numbered list of the sources it used. Use it for current information, documentation
or anything you do not know reliably. To read a specific page in full, use web_fetch instead."""


@dataclass(frozen=True)
class WebSearchParams:
    query: str


class WebSearchTool(ContextTool):
    name = "google_web_search"
    display_name = "GoogleSearch"
    description = _DESCRIPTION
    kind = "search"
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "What to search the web for."}},
        "required": ["query"],
    }

    def check(self, params: dict[str, Any]) -> str | None:
        if not str(params["query"]).strip():
            return "The query must not be empty."
        return None

    def build(self, params: dict[str, Any]) -> WebSearchInvocation:
        problem = self.validate(params)
        if problem:
            raise ToolError(problem, "invalid_params")
        return WebSearchInvocation(WebSearchParams(str(params["query"]).strip()), self.ctx)


class WebSearchInvocation(ToolInvocation[WebSearchParams]):
    def __init__(self, params: WebSearchParams, ctx: ToolContext) -> None:
        super().__init__(params)
        self.ctx = ctx

    def describe(self) -> str:
        return f'Searching the web for: "{self.params.query}"'

    async def execute(self, output: OutputSink) -> ToolResult:
        query = self.params.query
        if self.ctx.model is None:
            message = "Web search is not available: no model is configured for this session."
            return ToolResult(llm_content=message, error=message, error_type="web_search_unavailable")
        request = GenerateRequest(
            model=self.ctx.model_name,
            contents=(Content(role="user", parts=(Part(text=query),)),),
            google_search=True,
            include_thoughts=False,
        )
        try:
            chunk = await self.ctx.model.generate(request)
        except ModelError as exc:
            message = f'Web search for "{query}" failed: {exc}'
            return ToolResult(llm_content=message, error=message, error_type="web_search_failed")
        answer = chunk.text.strip()
        if not answer:
            message = f'No search results or information found for "{query}".'
            return ToolResult(llm_content=message, display="No information found.")
        text = f'Web search results for "{query}":\n\n{answer}'
        if chunk.sources:
            listed = "\n".join(f"[{n}] {s.title} ({s.uri})" for n, s in enumerate(chunk.sources, start=1))
            text += f"\n\nSources:\n{listed}"
        count = len(chunk.sources)
        shown = f"{count} source{'s' if count != 1 else ''}" if count else "no sources listed"
        # The answer is built from pages anyone can write: data for the model, never instructions.
        framed = wrap_untrusted(text, source="google_web_search")
        return ToolResult(llm_content=framed, display=f'Search results for "{query}" returned ({shown}).')
