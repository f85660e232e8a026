"""A session's short title, derived from its first prompt: one rule for live sessions and stored ones."""

from __future__ import annotations

import re

TITLE_MAX = 60
_MENTION_RE = re.compile(r"@((?:\\.|[^\s\\])+)")


def derive_title(prompt: str) -> str:
    """A short title from a prompt: its first non-empty line, whitespace collapsed, at most 60 characters.

    ``@path`` mentions are shortened to the file's name so the words around them stay visible.
    """
    line = next((ln for ln in prompt.splitlines() if ln.strip()), "")
    line = _MENTION_RE.sub(_short_mention, line)
    line = " ".join(line.split())
    if not line:
        return "Untitled"
    if len(line) <= TITLE_MAX:
        return line
    cut = line[: TITLE_MAX - 1]
    space = cut.rfind(" ")
    # Break at a word when that keeps most of the room; a single huge token is cut mid-word instead.
    if space >= TITLE_MAX * 2 // 3:
        cut = cut[:space]
    return cut.rstrip(" ,.;:-") + "…"


def _short_mention(match: re.Match[str]) -> str:
    raw = re.sub(r"\\(.)", r"\1", match.group(1))
    is_dir = raw.endswith("/")
    name = raw.rstrip("/").rsplit("/", 1)[-1] or raw
    return "@" + name + ("/" if is_dir else "")
