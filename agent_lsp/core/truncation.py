"""Cuts long tool output down for the model (head and tail kept), saving the full text to a file."""

from __future__ import annotations

import collections
import re
from pathlib import Path

DEFAULT_THRESHOLD = 40_000
HEAD_SHARE = 0.25  # the end of a long output (errors, summaries) is usually what matters most

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def truncate_for_model(
    text: str, *, threshold: int, temp_dir: Path, call_id: str, tool_name: str
) -> tuple[str, Path | None]:
    """``text`` if it fits in ``threshold`` characters; otherwise its first and last lines with a note
    between them naming the file (in ``temp_dir``) that holds the full text. Returns (text, saved path)."""
    if len(text) <= threshold:
        return text, None
    saved = _save(text, temp_dir, call_id, tool_name)
    lines = text.splitlines(keepends=True)

    def note(omitted_lines: int, omitted_chars: int) -> str:
        return (
            f"\n... [{omitted_lines} lines ({omitted_chars} characters) omitted here. The full output "
            f"({len(lines)} lines, {len(text)} characters) was saved to {saved}; read that file in ranges "
            "or search it to see the rest.] ...\n"
        )

    # The note's own length depends on the numbers in it; budget for the widest it can get.
    budget = max(0, threshold - len(note(len(lines), len(text))))
    head_budget = int(budget * HEAD_SHARE)
    head, head_used = _take_lines(lines, head_budget, from_end=False)
    tail, tail_used = _take_lines(lines[head_used:], budget - len(head), from_end=True)
    omitted_chars = len(text) - len(head) - len(tail)
    omitted_lines = len(lines) - head_used - tail_used
    return head + note(omitted_lines, omitted_chars) + tail, saved


def _take_lines(lines: list[str], budget: int, *, from_end: bool) -> tuple[str, int]:
    """Whole lines from one end of ``lines`` within ``budget`` characters, and how many whole lines that
    is. If not even one line fits, that line is cut (at its far end), so a single huge line still shows."""
    taken: list[str] = []
    used = 0
    for line in reversed(lines) if from_end else lines:
        if used + len(line) > budget:
            if not taken and budget > 0:
                part = line[-budget:] if from_end else line[:budget]
                return part, 0
            break
        taken.append(line)
        used += len(line)
    if from_end:
        taken.reverse()
    return "".join(taken), len(taken)


def _save(text: str, temp_dir: Path, call_id: str, tool_name: str) -> Path:
    temp_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{_UNSAFE.sub('_', tool_name)}_{_UNSAFE.sub('_', call_id)}"[:150] or "output"
    path = temp_dir / f"{stem}.output.txt"
    path.write_text(text, encoding="utf-8")
    return path


class HeadTailBuffer:
    """Keeps the first and last ``limit / 2`` characters of a stream (bounded memory for endless output)."""

    def __init__(self, limit: int) -> None:
        self._half = limit // 2
        self._head: list[str] = []
        self._head_len = 0
        self._tail: collections.deque[str] = collections.deque()
        self._tail_len = 0
        self.dropped = 0

    def add(self, text: str) -> None:
        if self._head_len < self._half:
            take = text[: self._half - self._head_len]
            self._head.append(take)
            self._head_len += len(take)
            text = text[len(take) :]
        if not text:
            return
        self._tail.append(text)
        self._tail_len += len(text)
        while self._tail_len > self._half:
            excess = self._tail_len - self._half
            first = self._tail[0]
            if len(first) <= excess:
                self._tail.popleft()
                self._tail_len -= len(first)
                self.dropped += len(first)
            else:
                self._tail[0] = first[excess:]
                self._tail_len -= excess
                self.dropped += excess

    def text(self) -> str:
        middle = f"\n... [{self.dropped} characters of output not kept] ...\n" if self.dropped else ""
        return "".join(self._head) + middle + "".join(self._tail)
