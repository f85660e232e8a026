"""``@path`` mentions in prompts: find them, read the files (or MCP resources), and put their text beside the
prompt."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Protocol

from agent_lsp.model.base import Part

# An @ at the start or after whitespace, then a path; backslash escapes spaces, as in Gemini CLI.
_MENTION = re.compile(r"(?:(?<=\s)|^)@((?:\\ |[^\s])+)")
_TRAILING = ".,;:!?)]}'\""

Reader = Callable[[list[str]], Awaitable[tuple[list[Part], list[str]]]]


def find_mentions(text: str) -> list[str]:
    """Paths mentioned with @ (e-mail addresses and a lone @ are not mentions)."""
    out: list[str] = []
    for m in _MENTION.finditer(text):
        path = m.group(1).replace("\\ ", " ").rstrip(_TRAILING)
        if path and path not in out:
            out.append(path)
    return out


class ResourceReader(Protocol):
    """Mentions that name something other than a file (``@server:uri``, an MCP server's resource)."""

    async def __call__(self, mentions: list[str]) -> tuple[list[str], list[Part], list[str]]:
        """(the mentions it took, their contents as parts, warnings); the rest are read as paths."""
        ...


class MentionExpander:
    """A PromptExpander: the prompt text first, then the mentioned resources' and files' contents."""

    def __init__(self, read: Reader, resources: ResourceReader | None = None) -> None:
        self.read = read
        self.resources = resources

    async def __call__(self, text: str) -> tuple[list[Part], list[str]]:
        paths = find_mentions(text)
        if not paths:
            return [Part(text=text)], []
        parts: list[Part] = []
        warnings: list[str] = []
        if self.resources is not None:
            taken, parts, warnings = await self.resources(paths)
            paths = [p for p in paths if p not in taken]
        if paths:
            file_parts, file_warnings = await self.read(paths)
            parts, warnings = [*parts, *file_parts], [*warnings, *file_warnings]
        if not parts:
            return [Part(text=text)], warnings
        header = Part(text="\n--- Content from referenced files ---")
        return [Part(text=text), header, *parts, Part(text="\n--- End of content ---")], warnings
