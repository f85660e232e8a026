"""Editor context for a prompt: ``{uri, range, selectedText, diagnostics}`` beside its content blocks → Session.send.

Each function is unit-tested on its own; a bad field raises ValueError naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_lsp.adapters.content import TextReader, read_blocks
from agent_lsp.adapters.lsp.documents import uri_to_path
from agent_lsp.fields import Fields, conforms
from agent_lsp.model.base import Part


async def prompt_input(prompt: Any, context: Any, read_text: TextReader) -> tuple[str | list[Part], list[Part]]:
    """``(prompt, attachments)`` for Session.send, from a string or content blocks (adapters/content.py, the
    reader both front ends share) plus optional editor context, which is attached after them (the selection and
    diagnostics are never scanned for mentions: an ``@`` in selected code is code, not a file to read). Raises
    ValueError naming a bad field."""
    check_context(context)
    extra = context_text(context) if context else ""
    editor = [Part(text=extra)] if extra else []
    if isinstance(prompt, str):
        return prompt, editor
    typed, attached = await read_blocks(prompt, read_text)
    return typed, attached + editor


def check_range(rng: Any, where: str = "range") -> None:
    """Raise ValueError (naming the field) unless ``rng`` is an LSP Range."""
    if not isinstance(rng, Mapping):
        raise ValueError(f"{where} must be an object with start and end")
    for end in ("start", "end"):
        pos = Fields(rng).require(end, dict, "")
        if pos is None:
            raise ValueError(f"{where}.{end} must be a position {{line, character}}")
        fields = Fields(pos, f"{where}.{end}")
        for key in ("line", "character"):
            if (fields.require(key, int, "must be a non-negative integer") or 0) < 0:
                fields.problem(key, "must be a non-negative integer")
        _raise_first(fields)


def check_context(context: Any) -> None:
    """Raise ValueError (naming the field) unless ``context`` is usable editor context (or absent)."""
    if context is None:
        return
    if not isinstance(context, Mapping):
        raise ValueError("context must be an object")
    fields = Fields(context, "context")
    fields.take("uri", str, "must be a string")
    _raise_first(fields)
    if context.get("range") is not None:
        check_range(context["range"], "context.range")
    for key in ("selectedText", "selection", "instruction", "sessionId"):
        fields.take(key, str, "must be a string")
    diagnostics = fields.take("diagnostics", list, "must be an array")
    _raise_first(fields)
    for i, d in enumerate(diagnostics or ()):
        if not isinstance(d, Mapping) or not conforms(d.get("message", ""), str):
            raise ValueError(f"context.diagnostics[{i}] must be a diagnostic {{range, message}}")
        check_range(d.get("range"), f"context.diagnostics[{i}].range")


def _raise_first(fields: Fields) -> None:
    """The first problem as the request's error: "context.uri must be a string"."""
    if fields.problems:
        where, _, why = fields.problems[0].partition(": ")
        raise ValueError(f"{where}.{why}")


def context_text(context: Any) -> str:
    """Editor context (file, range, selected text, diagnostics) as a short markdown block for the model."""
    if not isinstance(context, Mapping):
        return ""
    lines: list[str] = []
    uri = context.get("uri")
    path = uri_to_path(uri) if isinstance(uri, str) else None
    where = str(path) if path is not None else (uri or "")
    rng = context.get("range")
    if where:
        if isinstance(rng, Mapping):
            first, last = rng["start"]["line"] + 1, rng["end"]["line"] + 1
            if rng["end"]["character"] == 0 and last > first:
                last -= 1
            span = f"line {first}" if first == last else f"lines {first}-{last}"
            lines.append(f"Editor context: {where}, {span}.")
        else:
            lines.append(f"Editor context: {where}.")
    selection = context.get("selectedText", context.get("selection"))
    if isinstance(selection, str) and selection:
        lines.append(f"Selected text:\n```\n{selection}\n```")
    diagnostics = context.get("diagnostics") or []
    if diagnostics:
        lines.append("Diagnostics:")
        for d in diagnostics:
            line = d.get("range", {}).get("start", {}).get("line", 0) + 1
            source = f"[{d['source']}] " if d.get("source") else ""
            code = f" ({d['code']})" if d.get("code") is not None else ""
            lines.append(f"- line {line}: {source}{d.get('message', '')}{code}")
    return "\n".join(lines)
