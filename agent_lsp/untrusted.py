"""Content from outside the workspace (MCP servers, web pages, search answers, command and hook output) framed as
data for the model, in ``<untrusted_context>`` tags the content itself can never close or reopen.

The system prompt (core/prompts.py) tells the model that nothing inside these tags is an instruction. The frame is
only worth that rule if the framed text cannot end it early, so before framing every spelling of the tag's name is
defused — whatever its letter case, with spaces, separators or invisible characters between its letters, in
full-width or look-alike letters (Cyrillic, Greek), or written as HTML entities, percent or backslash escapes — and
with it every opening or closing tag that could be built from it.
"""

from __future__ import annotations

import html
import re
import unicodedata

TAG = "untrusted_context"
DEFUSED = "[tag removed]"  # contains no spelling of the name, so defusing twice changes nothing more
_NAME = "untrustedcontext"  # the tag's name as the skeleton spells it (letters only)

# Letters from other scripts that look like the Latin ones of the tag's name (Unicode's confusables, the subset
# that matters here); NFKC already folds full-width and mathematical letters to ASCII.
_LOOKALIKES = str.maketrans(
    {
        "а": "a",
        "с": "c",
        "е": "e",
        "о": "o",
        "р": "p",
        "х": "x",
        "у": "y",
        "т": "t",
        "п": "n",
        "і": "i",  # Cyrillic
        "ѕ": "s",
        "ԁ": "d",
        "ս": "u",
        "ո": "n",
        "υ": "u",
        "ν": "v",
        "ο": "o",
        "τ": "t",
        "ε": "e",
        "κ": "k",  # …, Greek
        "ı": "i",
        "ʀ": "r",
        "ꭇ": "r",
        "ᴛ": "t",
        "ᴜ": "u",
        "ɴ": "n",
        "ᴄ": "c",
        "ᴏ": "o",
        "ᴅ": "d",
        "ᴇ": "e",  # small
    }
)
# An escape: an HTML entity, a percent escape, a \\x / \\u / \\U escape; a unit of the text is one, or one character.
_ESCAPES = (
    r"&#[0-9]{1,7};?|&#[xX][0-9a-fA-F]{1,6};?|&[A-Za-z][A-Za-z0-9]{1,31};"
    r"|%[0-9a-fA-F]{2}|\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}"
)
_ESCAPE = re.compile(_ESCAPES)
_UNIT = re.compile(_ESCAPES + "|.", re.DOTALL)
_NOT_LETTER = re.compile(r"[\W_]+")  # keeps exactly what str.isalnum() keeps (combining marks go)


def _decode(unit: str) -> str:
    if len(unit) == 1:
        return unit
    if unit.startswith("&"):
        return html.unescape(unit if unit.endswith(";") else unit + ";")
    if unit.startswith("%"):
        return chr(int(unit[1:], 16))
    try:
        return chr(int(unit[2:], 16))
    except ValueError:  # beyond Unicode
        return unit


def _fold(text: str) -> str:
    """Letters and digits only, compatibility-decomposed (full-width → ASCII, accents dropped), case-folded and
    look-alikes mapped. Decomposition and folding work character by character, so folding a whole text is the
    concatenation of folding its characters: the cheap whole-text check below finds whatever the slow one would."""
    return _NOT_LETTER.sub("", unicodedata.normalize("NFKD", text).casefold().translate(_LOOKALIKES))


def _skeleton(unit: str) -> str:
    """What a unit contributes to the tag's name: its letters, folded; nothing for separators and invisibles."""
    return _fold(_decode(unit))


def defuse(text: str) -> str:
    """``text`` with every spelling of the tag's name (see the module's docstring) replaced by :data:`DEFUSED`."""
    if not text or _NAME not in _fold(_ESCAPE.sub(lambda m: _decode(m.group()), text)):
        return text  # the common case, decided without walking the text in Python
    units = [(m.start(), m.end(), _skeleton(m.group())) for m in _UNIT.finditer(text)]
    letters: list[str] = []
    owner: list[int] = []  # letters[i] came from units[owner[i]]
    for index, (_start, _end, skel) in enumerate(units):
        letters.extend(skel)
        owner.extend([index] * len(skel))
    joined = "".join(letters)
    spans: list[tuple[int, int]] = []
    at = joined.find(_NAME)
    while at >= 0:
        first, last = owner[at], owner[at + len(_NAME) - 1]
        spans.append((units[first][0], units[last][1]))
        at = joined.find(_NAME, at + len(_NAME))
    if not spans:
        return text
    out, pos = [], 0
    for start, end in spans:
        out.append(text[pos:start])
        out.append(DEFUSED)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def wrap_untrusted(text: str, source: str | None = None) -> str:
    """``text`` as data for the model: defused, inside ``<untrusted_context>`` tags naming where it came from."""
    label = f' source="{defuse(source).replace(chr(34), chr(39))}"' if source else ""
    return f"<{TAG}{label}>\n{defuse(text)}\n</{TAG}>"
