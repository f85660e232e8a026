"""Prompt content blocks (ACP's ContentBlock union, which LSP's ``agent/prompt`` carries too) → model Parts, once for
every front end.

One policy for both wires:
- text is what the user typed; a prompt of text only stays a string, so slash commands work;
- a ``resource_link`` to a local file is read through the front end's file system (the editor's unsaved buffer
  when it has one) and attached; to a local folder it becomes an ``@path`` mention, which the session's mention
  expander reads with its ignore rules and limits; to anything else (http, editor-internal schemes) the model
  gets the link itself;
- an embedded ``resource`` is attached: its text framed as ``--- Content from <uri> ---``, its blob as data;
- base64 (``data``, ``blob``) is checked on every block.

Attachments are never scanned for ``@path`` mentions: an ``@`` in attached code is code, not a file to read.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import mimetypes
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from agent_lsp.fields import Fields
from agent_lsp.model.base import InlineData, Part

MAX_BINARY_BYTES = 20 * 1024 * 1024  # Gemini's inline request limit
_BINARY_PREFIXES = ("image/", "audio/", "video/", "application/pdf")
_KINDS = "text, image, audio, resource_link, resource"

TextReader = Callable[[Path], Awaitable[str]]


class BlockError(ValueError):
    """A content block that cannot be read: ``where`` names the field (``prompt[2].data``), ``why`` says why."""

    def __init__(self, where: str, why: str) -> None:
        super().__init__(f"{where} {why}")
        self.where = where
        self.why = why


def file_path(uri: str) -> Path | None:
    """The local path of a ``file://`` URI (or of a bare absolute path some clients send), else None."""
    if uri.startswith("/"):
        return Path(uri)
    parts = urlsplit(uri)
    if parts.scheme != "file":
        return None
    path = unquote(parts.path)
    if len(path) > 2 and path[0] == "/" and path[2] == ":":  # file:///C:/x on Windows
        path = path[1:]
    return Path(path)


async def read_blocks(blocks: Any, read_text: TextReader, where: str = "prompt") -> tuple[str | list[Part], list[Part]]:
    """``(prompt, attachments)`` for ``Session.send``: what the user typed and what was attached. Raises
    BlockError naming the first bad field."""
    if not isinstance(blocks, Sequence) or isinstance(blocks, str):
        raise BlockError(where, "must be an array of content blocks")
    parts: list[Part] = []
    attachments: list[Part] = []
    for i, block in enumerate(blocks):
        at = f"{where}[{i}]"
        if not isinstance(block, Mapping):
            raise BlockError(at, "must be a content block object")
        kind = block.get("type")
        if kind == "text":
            parts.append(Part(text=_str(block, "text", at)))
        elif kind in ("image", "audio"):
            mime = _str(block, "mimeType", at)
            parts.append(Part(inline_data=InlineData(mime, _b64(block, "data", at))))
        elif kind == "resource_link":
            linked, mention = await _resource_link(block, at, read_text)
            attachments.extend(linked)
            if mention:
                parts.append(Part(text=mention))
        elif kind == "resource":
            attachments.append(_embedded(block, at))
        else:
            raise BlockError(f"{at}.type", f"must be one of {_KINDS}")
    if all(p.text is not None for p in parts):
        return "".join(p.text or "" for p in parts), attachments
    return parts, attachments


def framed(label: str, text: str) -> str:
    """Attached text as the model reads it (the framing Gemini CLI's ``@path`` reader uses)."""
    return f"\n--- Content from {label} ---\n{text}\n--- End of content ---\n"


def _str(block: Mapping[str, Any], key: str, where: str) -> str:
    fields = Fields(block, where)
    value: str | None = fields.require(key, str, "is required and must be a string")
    if value is None:
        raise BlockError(f"{where}.{key}", "is required and must be a string")
    return value


def _b64(block: Mapping[str, Any], key: str, where: str) -> bytes:
    try:
        return base64.b64decode(_str(block, key, where), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise BlockError(f"{where}.{key}", "must be base64") from exc


def _embedded(block: Mapping[str, Any], where: str) -> Part:
    resource = block.get("resource")
    if not isinstance(resource, Mapping):
        raise BlockError(f"{where}.resource", "is required and must be an object")
    uri = _str(resource, "uri", f"{where}.resource")
    if isinstance(resource.get("text"), str):
        return Part(text=framed(uri, resource["text"]))
    if isinstance(resource.get("blob"), str):
        data = _b64(resource, "blob", f"{where}.resource")
        mime = resource.get("mimeType") or mimetypes.guess_type(uri)[0] or "application/octet-stream"
        return Part(inline_data=InlineData(str(mime), data))
    raise BlockError(f"{where}.resource", "needs either text or blob")


async def _resource_link(block: Mapping[str, Any], where: str, read_text: TextReader) -> tuple[list[Part], str]:
    """(attachments, a mention for the prompt's text)."""
    uri = _str(block, "uri", where)
    name = block.get("name") if isinstance(block.get("name"), str) else uri
    path = file_path(uri)
    if path is None:
        return [Part(text=f"[{name}]({uri})")], ""
    if await asyncio.to_thread(path.is_dir):
        shown = str(path).replace(" ", "\\ ")
        return [], f" @{shown} "
    mime = block.get("mimeType") if isinstance(block.get("mimeType"), str) else mimetypes.guess_type(path.name)[0]
    if mime and mime.startswith(_BINARY_PREFIXES):
        try:
            data = await asyncio.to_thread(_read_binary, path)
        except OSError as exc:
            return [Part(text=f"[{name}]({uri}) (could not be read: {exc.strerror or exc})")], ""
        return [Part(text=f"\nAttached file {path}:\n"), Part(inline_data=InlineData(mime, data))], ""
    try:
        text = await read_text(path)
    except FileNotFoundError:
        return [Part(text=f"[{name}]({uri}) (no such file)")], ""
    except OSError as exc:
        return [Part(text=f"[{name}]({uri}) (could not be read: {exc.strerror or exc})")], ""
    return [Part(text=framed(str(path), text))], ""


def _read_binary(path: Path) -> bytes:
    size = path.stat().st_size
    if size > MAX_BINARY_BYTES:
        raise OSError(f"{size} bytes is more than the {MAX_BINARY_BYTES} bytes a prompt may carry")
    return path.read_bytes()
