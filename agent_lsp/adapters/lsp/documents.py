"""Mirror of the editor's open documents (didOpen/didChange/didClose) and LSP position arithmetic.

Pure: no protocol library. Positions are LSP positions: zero-based lines split on ``\\n``, ``\\r\\n`` or
``\\r`` only (not the other characters ``str.splitlines`` knows), characters counted in UTF-16 code units.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlparse

EOL = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    """Offsets (str indices) where each LSP line starts; a trailing newline opens one more, empty line."""
    if "\r" not in text:
        starts = [0]
        find = text.find
        i = find("\n")
        while i != -1:
            starts.append(i + 1)
            i = find("\n", i + 1)
        return starts
    return [0, *(m.end() for m in EOL.finditer(text))]


def split_lines(text: str) -> list[str]:
    """The text's lines with their terminators kept; ``"".join`` gives the text back."""
    starts = line_starts(text)
    bounds = [*starts, len(text)]
    lines = [text[bounds[i] : bounds[i + 1]] for i in range(len(starts))]
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def utf16_len(s: str) -> int:
    if s.isascii():
        return len(s)
    return len(s) + sum(1 for ch in s if ord(ch) > 0xFFFF)


def _utf16_to_index(line: str, character: int) -> int:
    """The str index inside ``line`` of a UTF-16 column (clamped to the line)."""
    if line.isascii():
        return min(character, len(line))
    units = 0
    for i, ch in enumerate(line):
        if units >= character:
            return i
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


def _line_content_end(text: str, starts: list[int], line: int) -> int:
    """Index just before the line's terminator (or the end of the text on the last line)."""
    if line + 1 < len(starts):
        end = starts[line + 1]
        if text[end - 1 : end] == "\n":
            end -= 1
            if text[end - 1 : end] == "\r":
                end -= 1
        elif text[end - 1 : end] == "\r":
            end -= 1
        return end
    return len(text)


def offset_at(text: str, starts: list[int], line: int, character: int) -> int:
    """The str index of an LSP position; positions past a line's end clamp to it, past the text to its end."""
    if line < 0:
        return 0
    if line >= len(starts):
        return len(text)
    begin = starts[line]
    end = _line_content_end(text, starts, line)
    return begin + _utf16_to_index(text[begin:end], character)


def position_at(text: str, starts: list[int], offset: int) -> dict[str, int]:
    """The LSP position of a str index."""
    line = bisect.bisect_right(starts, offset) - 1
    return {"line": line, "character": utf16_len(text[starts[line] : offset])}


def uri_to_path(uri: str) -> Path | None:
    """The local path of a ``file:`` URI (None for other schemes)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if re.match(r"^/[A-Za-z]:", path):  # file:///C:/x on Windows
        path = path[1:]
    return Path(path)


def path_to_uri(path: Path) -> str:
    return "file://" + quote(path.absolute().as_posix(), safe="/:@!$&'()*+,;=-._~")


def canonical(path: Path) -> Path:
    """The key documents are filed under: tools resolve symlinks, so the mirror does too."""
    try:
        return path.resolve()
    except OSError:
        return path.absolute()


@dataclass
class Document:
    uri: str
    path: Path
    text: str
    version: int | None
    language_id: str = ""
    # Set while the editor has applied our edit but not yet reported it: the text it last described, which
    # its next incremental didChange is relative to (``text`` already holds the edited text).
    reported: str | None = None
    changes: int = 0  # didChange notifications seen, to tell whether one arrived while an edit was out
    _starts: list[int] | None = field(default=None, repr=False)

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            self._starts = line_starts(self.text)
        return self._starts

    def set_text(self, text: str) -> None:
        self.text = text
        self._starts = None


class DocumentStore:
    """The editor's open documents by canonical path, as the editor last described them."""

    def __init__(self) -> None:
        self._by_path: dict[Path, Document] = {}

    def open(self, uri: str, text: str, version: int | None, language_id: str = "") -> Document | None:
        path = uri_to_path(uri)
        if path is None:
            return None
        doc = Document(uri, canonical(path), text, version, language_id)
        self._by_path[doc.path] = doc
        return doc

    def change(self, uri: str, version: int | None, changes: Iterable[Mapping[str, Any]]) -> Document | None:
        """Apply didChange content changes in order: ranged ones are incremental, others replace the text."""
        doc = self.by_uri(uri)
        if doc is None:
            return None
        if doc.reported is not None:
            # The editor describes changes from what it last told us, which may predate our applied edit.
            doc.set_text(doc.reported)
            doc.reported = None
        for change in changes:
            rng = change.get("range")
            if rng is None:
                doc.set_text(change["text"])
                continue
            starts = doc.starts
            start = offset_at(doc.text, starts, rng["start"]["line"], rng["start"]["character"])
            end = offset_at(doc.text, starts, rng["end"]["line"], rng["end"]["character"])
            doc.set_text(doc.text[:start] + change["text"] + doc.text[max(start, end) :])
        doc.version = version
        doc.changes += 1
        return doc

    def applied(self, doc: Document, content: str, changes_when_sent: int) -> None:
        """The editor answered ``applied: true`` to our edit turning the document into ``content``.

        When it has reported nothing since we sent the edit, its buffer now holds ``content`` even if its
        didChange is late (vim-lsp sends one only at the next keystroke): take the text from our own edit,
        and keep what the editor last described so that the late didChange still applies cleanly.
        """
        if self._by_path.get(doc.path) is not doc or doc.changes != changes_when_sent:
            return  # the editor reported since (or closed it): its own account wins
        if doc.reported is None:
            doc.reported = doc.text
        doc.set_text(content)

    def close(self, uri: str) -> None:
        doc = self.by_uri(uri)
        if doc is not None:
            del self._by_path[doc.path]

    def get(self, path: Path) -> Document | None:
        return self._by_path.get(canonical(path))

    def by_uri(self, uri: str) -> Document | None:
        path = uri_to_path(uri)
        return None if path is None else self._by_path.get(canonical(path))

    def documents(self) -> list[Document]:
        return list(self._by_path.values())
