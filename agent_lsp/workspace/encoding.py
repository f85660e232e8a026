"""Lossless text decoding of workspace files: what a file's bytes were, its edit gives back outside the change.

A file is read as UTF-8 (with or without a BOM), as UTF-16 when it starts with a UTF-16 BOM, and otherwise as a
single-byte encoding (Windows-1252 when every byte has a character there, else Latin-1). Each of these decodes
and encodes back to exactly the same bytes, so an edit changes only the bytes of the text it changed. A file
with NUL bytes and no UTF-16 BOM is binary: it can be read (as Latin-1, lossless) but never edited as text.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from agent_lsp.errors import ToolError


@dataclass(frozen=True)
class FileEncoding:
    """How a file's text becomes bytes: the codec, the byte-order mark before it, and a name for messages."""

    codec: str
    bom: bytes
    name: str
    binary: bool = False


UTF8 = FileEncoding("utf-8", b"", "UTF-8")
UTF8_BOM = FileEncoding("utf-8", codecs.BOM_UTF8, "UTF-8 with BOM")
UTF16_LE = FileEncoding("utf-16-le", codecs.BOM_UTF16_LE, "UTF-16 LE")
UTF16_BE = FileEncoding("utf-16-be", codecs.BOM_UTF16_BE, "UTF-16 BE")
CP1252 = FileEncoding("cp1252", b"", "Windows-1252")
LATIN1 = FileEncoding("latin-1", b"", "Latin-1")
BINARY = FileEncoding("latin-1", b"", "binary", binary=True)


class BinaryFileError(ToolError):
    """The file is not text (NUL bytes and no UTF-16 BOM), so a text edit would corrupt it."""

    def __init__(self, where: str) -> None:
        super().__init__(
            f"{where} is a binary file (it has NUL bytes and no UTF-16 byte-order mark), so it cannot be edited "
            "as text. Nothing was written.",
            "binary_file",
        )


class UnencodableTextError(ToolError):
    """The new text has characters the file's encoding cannot store."""


def decode(data: bytes) -> tuple[str, FileEncoding]:
    """The text of ``data`` and the encoding that turns that text back into exactly ``data``."""
    for enc in (UTF16_LE, UTF16_BE):
        if data.startswith(enc.bom):
            try:
                # surrogatepass: a lone surrogate in the file comes back as the same two bytes.
                return data[len(enc.bom) :].decode(enc.codec, "surrogatepass"), enc
            except UnicodeDecodeError:
                return data.decode(BINARY.codec), BINARY
    if b"\x00" in data:
        return data.decode(BINARY.codec), BINARY
    if data.startswith(UTF8_BOM.bom):
        try:
            return data[len(UTF8_BOM.bom) :].decode("utf-8"), UTF8_BOM
        except UnicodeDecodeError:
            pass  # a BOM before bytes that are not UTF-8: the single-byte reading below keeps the BOM as text
    else:
        try:
            return data.decode("utf-8"), UTF8
        except UnicodeDecodeError:
            pass
    try:
        return data.decode(CP1252.codec), CP1252
    except UnicodeDecodeError:
        # Five bytes have no Windows-1252 character; Latin-1 maps every byte to one character.
        return data.decode(LATIN1.codec), LATIN1


def encode(text: str, enc: FileEncoding, where: str = "the file") -> bytes:
    """``text`` as bytes of ``enc``. Raises BinaryFileError or UnencodableTextError, naming ``where``."""
    if enc.binary:
        raise BinaryFileError(where)
    errors = "surrogatepass" if enc.codec.startswith("utf-16") else "strict"
    try:
        return enc.bom + text.encode(enc.codec, errors)
    except UnicodeEncodeError as exc:
        bad = sorted({ch for ch in exc.object[exc.start : exc.end]} | _unencodable(text, enc.codec, exc.end))
        shown = ", ".join(f"{ch!r} (U+{ord(ch):04X})" for ch in bad[:5]) + (", ..." if len(bad) > 5 else "")
        raise UnencodableTextError(
            f"{where} is encoded as {enc.name}, which has no {shown}; nothing was written. Keep the file's "
            f"encoding: use only characters {enc.name} can store (for example an ASCII spelling, or an escape "
            "sequence of the file's language), or ask the user to convert the file to UTF-8 first.",
            "unencodable_text",
        ) from None


def _unencodable(text: str, codec: str, start: int, limit: int = 6) -> set[str]:
    """Up to ``limit`` more characters after ``start`` that ``codec`` cannot encode (for the message)."""
    found: set[str] = set()
    for ch in text[start:]:
        if len(found) >= limit:
            break
        if ord(ch) > 0x7F and ch not in found:
            try:
                ch.encode(codec)
            except UnicodeEncodeError:
                found.add(ch)
    return found
