"""``@path`` mentions in prompts: find them, read the files, and put their text beside the prompt."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

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


class MentionExpander:
    """A PromptExpander: the prompt text first, then the mentioned files' contents."""

    def __init__(self, read: Reader) -> None:
        self.read = read

    async def __call__(self, text: str) -> tuple[list[Part], list[str]]:
        paths = find_mentions(text)
        if not paths:
            return [Part(text=text)], []
        parts, warnings = await self.read(paths)
        if not parts:
            return [Part(text=text)], warnings
        header = Part(text="\n--- Content from referenced files ---")
        return [Part(text=text), header, *parts, Part(text="\n--- End of content ---")], warnings
