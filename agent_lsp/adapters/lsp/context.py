"""Editor context for a prompt: content blocks and ``{uri, range, selectedText, diagnostics}`` → Session.send.

Pure: each function is unit-tested on its own; a bad field raises ValueError naming it.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Any

from agent_lsp.adapters.lsp.documents import uri_to_path
from agent_lsp.model.base import InlineData, Part


def prompt_input(prompt: Any, context: Any = None) -> tuple[str | list[Part], list[Part]]:
    """``(prompt, attachments)`` for Session.send, from a string or ACP-like content blocks plus optional context.

    What the user typed stays the prompt: a plain string when it is only text, so slash commands keep working;
    file links become ``@path`` mentions there (read by the session's mention expander). Embedded resources and
    the editor context (selection, diagnostics) are attachments, never scanned for mentions: an ``@`` in
    selected code is code, not a file to read."""
    check_context(context)
    extra = context_text(context) if context else ""
    editor = [Part(text=extra)] if extra else []
    if isinstance(prompt, str):
        return prompt, editor
    if not isinstance(prompt, Sequence):
        raise ValueError("prompt must be a string or a list of content blocks")
    parts: list[Part] = []
    embedded: list[Part] = []
    for block in prompt:
        if not isinstance(block, Mapping):
            raise ValueError("each content block must be an object")
        kind = block.get("type")
        if kind == "text":
            parts.append(Part(text=str(block.get("text", ""))))
        elif kind == "resource_link":
            parts.append(Part(text=_mention(str(block.get("uri", "")), str(block.get("name", "")))))
        elif kind == "resource":
            embedded.append(_embedded(block.get("resource") or {}))
        elif kind in ("image", "audio"):
            parts.append(Part(inline_data=InlineData(str(block.get("mimeType")), base64.b64decode(block["data"]))))
        else:
            raise ValueError(f"unsupported content block type {kind!r}")
    if all(p.text is not None for p in parts):
        return "".join(p.text or "" for p in parts), embedded + editor
    return parts, embedded + editor


def _embedded(res: Mapping[str, Any]) -> Part:
    if "text" in res:
        return Part(text=f"\nContent of {res.get('uri', 'a resource')}:\n```\n{res['text']}\n```\n")
    if "blob" in res:
        mime = str(res.get("mimeType") or "application/octet-stream")
        return Part(inline_data=InlineData(mime, base64.b64decode(res["blob"])))
    raise ValueError("an embedded resource needs text or blob")


def _mention(uri: str, name: str) -> str:
    path = uri_to_path(uri)
    if path is None:
        return f" {name or uri} "
    shown = str(path).replace(" ", "\\ ")
    return f" @{shown} "


def check_range(rng: Any, where: str = "range") -> None:
    """Raise ValueError (naming the field) unless ``rng`` is an LSP Range."""
    if not isinstance(rng, Mapping):
        raise ValueError(f"{where} must be an object with start and end")
    for end in ("start", "end"):
        pos = rng.get(end)
        if not isinstance(pos, Mapping):
            raise ValueError(f"{where}.{end} must be a position {{line, character}}")
        for key in ("line", "character"):
            value = pos.get(key)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{where}.{end}.{key} must be a non-negative integer")


def check_context(context: Any) -> None:
    """Raise ValueError (naming the field) unless ``context`` is usable editor context (or absent)."""
    if context is None:
        return
    if not isinstance(context, Mapping):
        raise ValueError("context must be an object")
    uri = context.get("uri")
    if uri is not None and not isinstance(uri, str):
        raise ValueError("context.uri must be a string")
    if context.get("range") is not None:
        check_range(context["range"], "context.range")
    for key in ("selectedText", "selection", "instruction", "sessionId"):
        if context.get(key) is not None and not isinstance(context[key], str):
            raise ValueError(f"context.{key} must be a string")
    diagnostics = context.get("diagnostics")
    if diagnostics is None:
        return
    if not isinstance(diagnostics, list):
        raise ValueError("context.diagnostics must be an array")
    for i, d in enumerate(diagnostics):
        if not isinstance(d, Mapping) or not isinstance(d.get("message", ""), str):
            raise ValueError(f"context.diagnostics[{i}] must be a diagnostic {{range, message}}")
        check_range(d.get("range"), f"context.diagnostics[{i}].range")


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
