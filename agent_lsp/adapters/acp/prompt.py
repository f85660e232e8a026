"""ACP prompt content blocks (text, resource links, embedded resources, images, audio) → model Parts."""

from __future__ import annotations

import asyncio
import base64
import binascii
import mimetypes
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from agent_lsp.adapters.acp.jsonrpc import RpcError
from agent_lsp.model.base import InlineData, Part

MAX_BINARY_BYTES = 20 * 1024 * 1024  # Gemini's inline request limit
_BINARY_PREFIXES = ("image/", "audio/", "video/", "application/pdf")

TextReader = Callable[[Path], Awaitable[str]]


def file_path(uri: str) -> Path | None:
    """The local path of a ``file://`` URI (or of a bare absolute path some clients send), else None."""
    if uri.startswith("/"):
        return Path(uri)
    parts = urlsplit(uri)
    if parts.scheme != "file":
        return None
    return Path(unquote(parts.path))


async def prompt_from_blocks(blocks: list[Any], read_text: TextReader) -> tuple[str | list[Part], list[Part]]:
    """``(prompt, attachments)`` for ``Session.send``: what the user typed (a plain string when it is only
    text, so slash commands work; else text and media Parts) and the contents of attached resources, which
    are never scanned for ``@path`` mentions. Raises RpcError -32602 naming the bad block."""
    parts: list[Part] = []
    attachments: list[Part] = []
    for i, block in enumerate(blocks):
        where = f"prompt[{i}]"
        if not isinstance(block, dict):
            raise RpcError.invalid_params(where, "must be a content block object")
        kind = block.get("type")
        if kind == "text":
            parts.append(Part(text=_str(block, "text", where)))
        elif kind in ("image", "audio"):
            mime = _str(block, "mimeType", where)
            parts.append(Part(inline_data=InlineData(mime, _b64(block, "data", where))))
        elif kind == "resource_link":
            attachments.extend(await _resource_link(block, where, read_text))
        elif kind == "resource":
            attachments.append(_embedded(block, where))
        else:
            raise RpcError.invalid_params(f"{where}.type", "must be one of text, image, audio, resource_link, resource")
    if all(p.text is not None for p in parts):
        return "".join(p.text or "" for p in parts), attachments
    return parts, attachments


def _str(block: dict[str, Any], key: str, where: str) -> str:
    value = block.get(key)
    if not isinstance(value, str):
        raise RpcError.invalid_params(f"{where}.{key}", "is required and must be a string")
    return value


def _b64(block: dict[str, Any], key: str, where: str) -> bytes:
    try:
        return base64.b64decode(_str(block, key, where), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise RpcError.invalid_params(f"{where}.{key}", "must be base64") from exc


def _embedded(block: dict[str, Any], where: str) -> Part:
    resource = block.get("resource")
    if not isinstance(resource, dict):
        raise RpcError.invalid_params(f"{where}.resource", "is required and must be an object")
    uri = _str(resource, "uri", f"{where}.resource")
    if isinstance(resource.get("text"), str):
        return Part(text=_quoted(uri, resource["text"]))
    if isinstance(resource.get("blob"), str):
        data = _b64(resource, "blob", f"{where}.resource")
        mime = resource.get("mimeType") or mimetypes.guess_type(uri)[0] or "application/octet-stream"
        return Part(inline_data=InlineData(str(mime), data))
    raise RpcError.invalid_params(f"{where}.resource", "needs either text or blob")


async def _resource_link(block: dict[str, Any], where: str, read_text: TextReader) -> list[Part]:
    uri = _str(block, "uri", where)
    name = block.get("name") if isinstance(block.get("name"), str) else uri
    path = file_path(uri)
    if path is None:
        # Not something we can open (http, editor-internal schemes): the model gets the reference itself.
        return [Part(text=f"[{name}]({uri})")]
    mime = block.get("mimeType") if isinstance(block.get("mimeType"), str) else mimetypes.guess_type(path.name)[0]
    if mime and mime.startswith(_BINARY_PREFIXES):
        try:
            data = await asyncio.to_thread(_read_binary, path)
        except OSError as exc:
            return [Part(text=f"[{name}]({uri}) (could not be read: {exc.strerror or exc})")]
        return [Part(text=f"\nAttached file {path}:\n"), Part(inline_data=InlineData(mime, data))]
    try:
        text = await read_text(path)
    except FileNotFoundError:
        return [Part(text=f"[{name}]({uri}) (no such file)")]
    except OSError as exc:
        return [Part(text=f"[{name}]({uri}) (could not be read: {exc.strerror or exc})")]
    return [Part(text=_quoted(str(path), text))]


def _read_binary(path: Path) -> bytes:
    size = path.stat().st_size
    if size > MAX_BINARY_BYTES:
        raise OSError(f"{size} bytes is more than the {MAX_BINARY_BYTES} bytes a prompt may carry")
    return path.read_bytes()


def _quoted(label: str, text: str) -> str:
    return f"\n--- Content from {label} ---\n{text}\n--- End of content ---\n"
