"""get_internal_docs: agent-lsp's own documentation (docs/*.md), listed or read; the cli_help subagent's only tool
(Gemini CLI 0.61 gives its cli_help the same tool over its bundled docs)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent_lsp.tools.base import OutputSink, Tool, ToolInvocation, ToolResult

GET_INTERNAL_DOCS = "get_internal_docs"
MAX_DOC_CHARS = 200_000  # a page larger than this is cut (ours are far smaller)


def docs_root() -> Path | None:
    """The documentation folder: ``agent_lsp/docs`` (a link to the checkout's docs/, copied into the wheel)."""
    root = Path(__file__).resolve().parents[1] / "docs"
    return root if root.is_dir() else None


class GetInternalDocsTool(Tool):
    name = GET_INTERNAL_DOCS
    display_name = "Get Internal Docs"
    description = (
        "Lists agent-lsp's documentation files (no argument), or returns one file's content (its relative `path`)."
    )
    kind = "think"  # reads only the program's own documentation, never the workspace
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "A documentation file, relative to the docs folder (e.g. 'tools.md'). "
                "Leave it out to list every file.",
            }
        },
    }

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else docs_root()

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        path = params.get("path")
        return _Docs(str(path) if path else None, self.root)


class _Docs(ToolInvocation[str | None]):
    def __init__(self, params: str | None, root: Path | None) -> None:
        super().__init__(params)
        self.root = root

    def describe(self) -> str:
        return f"Reading internal documentation: {self.params}" if self.params else "Listing the documentation."

    async def execute(self, output: OutputSink) -> ToolResult:
        try:
            return await asyncio.to_thread(self._run)
        except (OSError, ValueError) as exc:
            message = f"Error accessing internal documentation: {exc}"
            return ToolResult(llm_content=message, display=message, error=message)

    def _run(self) -> ToolResult:
        if self.root is None:
            raise OSError("the documentation is not installed with this copy of agent-lsp")
        root = self.root.resolve()
        if self.params is None:
            files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
            listing = "\n".join(f"- {f}" for f in files)
            return ToolResult(
                llm_content=f"Available agent-lsp documentation files:\n\n{listing}",
                display=f"Found {len(files)} documentation files.",
            )
        target = (root / self.params).resolve()
        if not target.is_relative_to(root) or target.suffix != ".md":
            raise ValueError("only the documentation's own .md files can be read")
        text = target.read_text(encoding="utf-8")[:MAX_DOC_CHARS]
        return ToolResult(llm_content=text, display=f"Read documentation: {self.params}")
