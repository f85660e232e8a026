"""Change one value in a JSONC settings file and keep everything else byte for byte: comments, order, layout.

``settings.json`` is the user's file: Gemini CLI rewrites it preserving comments, and so must we when
``/skills disable`` (or any other command) records a choice there. Only the value at the given key path is
replaced, or the missing keys are inserted at the end of their object, indented like their siblings.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_WS = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.S)  # whitespace and comments between tokens
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_LITERAL = re.compile(r"[^\s,:\[\]{}/\"]+")
_TAIL = re.compile(r"[ \t]*(?://[^\n]*|/\*[^\n]*?\*/[ \t]*)?(?=\n)")  # the rest of a line: blanks, a comment


@dataclass
class _Member:
    key: str
    start: int  # the key's opening quote
    value_start: int
    value_end: int
    value: _Object | None  # set when the value is an object


@dataclass
class _Object:
    start: int  # the opening brace
    end: int = 0  # the closing brace
    members: list[_Member] = field(default_factory=list)
    stray_commas: list[int] = field(default_factory=list)  # ``{,}``: what the loader's trailing-comma rule accepts


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip(self) -> None:
        match = _WS.match(self.text, self.pos)
        self.pos = match.end() if match else self.pos

    def fail(self, what: str) -> ValueError:
        line = self.text.count("\n", 0, self.pos) + 1
        return ValueError(f"{what} at line {line}")

    def value(self) -> _Object | None:
        """Scan one value starting at ``pos`` (after whitespace); returns its object tree when it is one."""
        self.skip()
        char = self.text[self.pos : self.pos + 1]
        if char == "{":
            return self.object()
        if char == "[":
            self.array()
            return None
        match = (_STRING if char == '"' else _LITERAL).match(self.text, self.pos)
        if match is None:
            raise self.fail("expected a value")
        self.pos = match.end()
        return None

    def object(self) -> _Object:
        obj = _Object(self.pos)
        self.pos += 1
        while True:
            self.skip()
            char = self.text[self.pos : self.pos + 1]
            if char == "}":
                obj.end = self.pos
                self.pos += 1
                return obj
            if char == "," and not obj.members:
                obj.stray_commas.append(self.pos)
                self.pos += 1
                continue
            match = _STRING.match(self.text, self.pos)
            if match is None:
                raise self.fail("expected a key")
            key_start, self.pos = self.pos, match.end()
            self.skip()
            if self.text[self.pos : self.pos + 1] != ":":
                raise self.fail("expected ':'")
            self.pos += 1
            self.skip()
            value_start = self.pos
            nested = self.value()
            obj.members.append(_Member(json.loads(match.group()), key_start, value_start, self.pos, nested))
            self.skip()
            if self.text[self.pos : self.pos + 1] == ",":
                self.pos += 1

    def array(self) -> None:
        self.pos += 1
        while True:
            self.skip()
            char = self.text[self.pos : self.pos + 1]
            if char == "]":
                self.pos += 1
                return
            if not char:
                raise self.fail("unterminated array")
            if char == ",":  # ``[,]``: accepted by the loader's trailing-comma rule
                self.pos += 1
                continue
            self.value()
            self.skip()
            if self.text[self.pos : self.pos + 1] == ",":
                self.pos += 1


def set_value(text: str, path: tuple[str, ...], value: Any) -> str:
    """``text`` with the value at ``path`` (object keys from the top) set to ``value``; raises ValueError when
    the text is not a JSONC object or a key on the way holds something other than an object."""
    if not path:
        raise ValueError("an empty key path")
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text[len(bom) :]
    if not body.strip():
        return bom + json.dumps(_nest(path, value), indent=2) + "\n"
    scanner = _Scanner(body)
    scanner.skip()
    if body[scanner.pos : scanner.pos + 1] != "{":
        raise ValueError("the top level is not an object")
    obj = scanner.object()
    for depth, key in enumerate(path):
        found = [m for m in obj.members if m.key == key]  # JSON's last duplicate wins
        member = found[-1] if found else None
        if member is None:
            return bom + _insert(body, obj, path[depth:], value)
        if depth == len(path) - 1:
            indent = _indent_at(body, member.start)
            new = _dump(value, indent)
            return bom + body[: member.value_start] + new + body[member.value_end :]
        if member.value is None:
            raise ValueError(f"'{'.'.join(path[: depth + 1])}' is not an object")
        obj = member.value
    raise AssertionError("unreachable")


def _nest(path: tuple[str, ...], value: Any) -> Any:
    for key in reversed(path):
        value = {key: value}
    return value


def _indent_at(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    prefix = text[line_start:pos]
    return prefix if not prefix.strip() else ""


def _dump(value: Any, indent: str) -> str:
    return json.dumps(value, indent=2).replace("\n", "\n" + indent)


def _insert(text: str, obj: _Object, path: tuple[str, ...], value: Any) -> str:
    """Add ``"path[0]": …`` as the last member of ``obj``."""
    close_indent = _indent_at(text, obj.end)
    if obj.members:
        last = obj.members[-1]
        indent = _indent_at(text, last.start)
        inline = indent == "" and "\n" not in text[obj.start : obj.end]
        # A trailing comma may already follow the last value (JSONC allows it).
        after = text[last.value_end : obj.end]
        scanner = _Scanner(after)
        scanner.skip()
        has_comma = after[scanner.pos : scanner.pos + 1] == ","
        head = text[: last.value_end] + ("" if has_comma else ",")
        cut = last.value_end + (scanner.pos + 1 if has_comma else 0)
        entry = f"{json.dumps(path[0])}: {_dump(_nest(path[1:], value) if path[1:] else value, indent)}"
        if inline:
            return head + text[last.value_end : cut] + " " + entry + text[cut:]
        # A comment at the end of the last member's line stays on that line.
        rest = _TAIL.match(text, cut)
        cut = rest.end() if rest else cut
        return head + text[last.value_end : cut] + "\n" + indent + entry + text[cut:]
    for comma in reversed(obj.stray_commas):  # ``{,}`` becomes ``{`` + the new member + ``}``
        text = text[:comma] + " " + text[comma + 1 :]
    indent = close_indent + "  "
    entry = f"{json.dumps(path[0])}: {_dump(_nest(path[1:], value) if path[1:] else value, indent)}"
    inner = text[obj.start + 1 : obj.end]
    if inner.strip():  # only comments inside: keep them, add the member after
        return text[: obj.end].rstrip(" \t") + "\n" + indent + entry + "\n" + close_indent + text[obj.end :]
    return text[: obj.start + 1] + "\n" + indent + entry + "\n" + close_indent + text[obj.end :]
