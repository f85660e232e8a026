"""What the model reads of a call: a tool's result cut to size (full text saved), just-in-time memory added, and
Gemini CLI's "did you mean" for unknown tools."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agent_lsp.core.ports import JitMemory
from agent_lsp.core.tool import ToolResult
from agent_lsp.core.truncation import truncate_for_model
from agent_lsp.model.base import Part


def answer_text(
    result: ToolResult,
    *,
    truncate_at: int | None,
    temp_dir: Path,
    call_id: str,
    tool_name: str,
    jit_memory: JitMemory | None,
) -> tuple[str, list[Part]]:
    """The text of the functionResponse and the media parts sent after it. ``truncate_at`` set: output above it
    is cut to its head and tail for the model, the whole text saved to a file in ``temp_dir``."""
    text, extra = split_content(result.llm_content)
    if truncate_at is not None and len(text) > truncate_at:
        text, _saved = truncate_for_model(
            text, threshold=truncate_at, temp_dir=temp_dir, call_id=call_id, tool_name=tool_name
        )
    if jit_memory is not None and result.touched_paths:
        extra_context = jit_memory.context_for(list(result.touched_paths))
        if extra_context:
            text += "\n\n" + extra_context
    return text, extra


def split_content(content: str | list[Part]) -> tuple[str, list[Part]]:
    if isinstance(content, str):
        return content, []
    texts = [p.text for p in content if p.text]
    extra = [p for p in content if p.inline_data is not None]
    return "\n".join(texts), extra


def tool_suggestion(name: str, names: Sequence[str], top: int = 3) -> str:
    """ " Did you mean …?" with the closest names by edit distance, as Gemini CLI words it."""
    ranked = sorted(names, key=lambda n: _distance(name, n))[:top]
    if not ranked:
        return ""
    quoted = ", ".join(f'"{n}"' for n in ranked)
    return f" Did you mean one of: {quoted}?" if len(ranked) > 1 else f" Did you mean {quoted}?"


def _distance(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]
