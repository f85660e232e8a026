"""Line endings through an edit: edits are computed on LF text, then every line keeps the ending it had.

The model reads files with LF line breaks and writes LF. ``restore_endings`` maps an edited LF text back onto
the original's endings: unchanged lines get exactly the ending they had (LF or CRLF, so a mixed file stays
mixed), lines edited in place keep their line's ending, and new lines take the file's dominant ending.
"""

from __future__ import annotations

import re

from agent_lsp import linediff

_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def to_lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def dominant_ending(text: str) -> str:
    """CRLF when most line breaks of ``text`` are CRLF, else LF (also for a text without line breaks)."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf > text.count("\n") - crlf else "\n"


def _split(text: str) -> tuple[list[str], list[str]]:
    """Lines without their endings, and the endings ("\\n", "\\r\\n" or "" for a last line without one)."""
    bodies: list[str] = []
    ends: list[str] = []
    for line in _LINE.findall(text):
        if line.endswith("\r\n"):
            bodies.append(line[:-2])
            ends.append("\r\n")
        elif line.endswith("\n"):
            bodies.append(line[:-1])
            ends.append("\n")
        else:
            bodies.append(line)
            ends.append("")
    return bodies, ends


def restore_endings(original: str, edited: str) -> str:
    """``edited`` (an LF text computed from ``to_lf(original)``) with the line endings of ``original``."""
    if "\r\n" not in original:
        return edited  # an LF file (the usual case): nothing to map
    old, old_ends = _split(original)
    new, new_ends = _split(edited)
    dominant = dominant_ending(original)
    ends = [dominant] * len(new)
    # The unchanged head and tail are aligned directly, so a local edit in a large file costs no diff.
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        ends[head] = old_ends[head]
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        ends[len(new) - 1 - tail] = old_ends[len(old) - 1 - tail]
        tail += 1
    # Bounded time whatever the edit (a rewrite of a 50k-line CRLF file, a reordering): see linediff. A line it
    # leaves unpaired in a replaced block is still paired by position below.
    for op, i1, i2, j1, j2 in linediff.opcodes(old[head : len(old) - tail], new[head : len(new) - tail]):
        if op in ("equal", "replace"):
            # A line changed in place keeps its ending; extra new lines of a replacement keep the dominant one.
            for k in range(min(i2 - i1, j2 - j1)):
                ends[head + j1 + k] = old_ends[head + i1 + k]
    out: list[str] = []
    for body, end, new_end in zip(new, ends, new_ends, strict=True):
        # The last line of the edited text decides whether the file ends with a line break.
        out.append(body + ((end or dominant) if new_end else ""))
    return "".join(out)
