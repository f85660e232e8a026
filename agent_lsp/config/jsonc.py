"""Reading settings files: JSON with comments and trailing commas (JSONC), and errors that name the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_lsp.errors import ConfigError


def strip_jsonc(text: str) -> str:
    """Drop // and /* */ comments and trailing commas outside strings; newlines are kept for error positions."""
    return _drop_trailing_commas(_drop_comments(text))


def _string_end(text: str, start: int) -> int:
    """The index just past the JSON string that opens at ``start`` (escapes skipped; unterminated: the end)."""
    j, n = start + 1, len(text)
    while j < n and text[j] != '"':
        j += 2 if text[j] == "\\" else 1
    return min(j + 1, n)


def _drop_comments(text: str) -> str:
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = _string_end(text, i)
            out.append(text[i:j])
            i = j
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            stop = n if end < 0 else end + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:stop]))
            i = stop
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _drop_trailing_commas(text: str) -> str:
    chars = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = _string_end(text, i)
            continue
        if c == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] in "}]":
                chars[i] = " "
        i += 1
    return "".join(chars)


def parse_jsonc(text: str) -> Any:
    """json.loads for settings files: BOM, comments and trailing commas tolerated. Raises ValueError."""
    return json.loads(strip_jsonc(text.lstrip("\ufeff")))


def read_json_file(path: Path) -> tuple[Any, ConfigError | None]:
    """(value, None), or (None, None) when the file is absent, or (None, error) when it cannot be used."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as exc:
        return None, ConfigError(f"cannot read the file ({exc.__class__.__name__}: {exc})", file=str(path))
    if not text.strip():
        return {}, None
    try:
        return parse_jsonc(text), None
    except RecursionError:
        return None, ConfigError("JSON nested too deeply to read; the file was skipped", file=str(path))
    except json.JSONDecodeError as exc:
        return None, ConfigError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}; the file was skipped", file=str(path)
        )
