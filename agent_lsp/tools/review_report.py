"""What the model is told when the user applied an edited or partly accepted proposal: hunk by hunk, exactly."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agent_lsp import linediff

Verdict = Literal["applied", "refused", "edited"]
_PREVIEW = 60


@dataclass(frozen=True)
class Hunk:
    """One change of a proposal: ``old[old_start:old_end]`` became ``new[new_start:new_end]`` (0-based lines)."""

    old_start: int
    old_end: int
    new_start: int
    new_end: int


@dataclass(frozen=True)
class HunkOutcome:
    hunk: Hunk
    verdict: Verdict
    removed: tuple[str, ...]
    proposed: tuple[str, ...]
    written: tuple[str, ...] | None  # the lines that landed in the hunk's place; None when it cannot be located


def _split(text: str) -> list[str]:
    """Lines with their endings; only "\n" ends a line (as in diffing.py), not form feeds or U+2028."""
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def hunks(old: list[str], new: list[str]) -> list[Hunk]:
    """The proposal's hunks: every run of changed lines, without context (so editors can take them one by one)."""
    return [Hunk(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in linediff.opcodes(old, new) if tag != "equal"]


def _kept_lines(old: list[str], final: list[str]) -> dict[int, int]:
    """Where each unchanged line of ``old`` sits in ``final``."""
    kept: dict[int, int] = {}
    for tag, i1, i2, j1, _j2 in linediff.opcodes(old, final):
        if tag == "equal":
            for k in range(i2 - i1):
                kept[i1 + k] = j1 + k
    return kept


def classify(old_text: str, proposed_text: str, final_text: str) -> list[HunkOutcome]:
    """Each hunk of the proposal (old → proposed) judged by what was written (final): taken, refused or edited."""
    old = _split(old_text)
    new = _split(proposed_text)
    final = _split(final_text)
    kept = _kept_lines(old, final)
    outcomes: list[HunkOutcome] = []
    for h in hunks(old, new):
        removed, proposed = tuple(old[h.old_start : h.old_end]), tuple(new[h.new_start : h.new_end])
        # The hunk's place in the written file lies between the unchanged lines around it.
        start = 0 if h.old_start == 0 else kept.get(h.old_start - 1, -2) + 1
        end = len(final) if h.old_end == len(old) else kept.get(h.old_end, -1)
        written = tuple(final[start:end]) if start >= 0 and end >= start else None
        if written == proposed:
            verdict: Verdict = "applied"
        elif written == removed:
            verdict = "refused"
        else:
            verdict = "edited"
        outcomes.append(HunkOutcome(h, verdict, removed, proposed, written))
    return outcomes


def _span(start: int, end: int) -> str:
    if end - start <= 1:
        return f"line {start + 1}"
    return f"lines {start + 1}-{end}"


def _preview(lines: tuple[str, ...]) -> str:
    first = next((line.strip() for line in lines if line.strip()), "")
    if len(first) > _PREVIEW:
        first = first[: _PREVIEW - 1] + "…"
    more = f" (+{len(lines) - 1} more line{'s' if len(lines) > 2 else ''})" if len(lines) > 1 else ""
    return f"`{first}`{more}" if first else "blank lines"


def _describe(n: int, outcome: HunkOutcome) -> str:
    h = outcome.hunk
    if h.old_start == h.old_end:
        what = f"insert after line {h.old_start}: {_preview(outcome.proposed)}"
    elif h.new_start == h.new_end:
        what = f"delete {_span(h.old_start, h.old_end)}: {_preview(outcome.removed)}"
    else:
        what = f"replace {_span(h.old_start, h.old_end)} {_preview(outcome.removed)} with {_preview(outcome.proposed)}"
    verdict = {
        "applied": "applied",
        "refused": "REFUSED (those lines were left as they were)",
        "edited": "applied with the user's own changes",
    }[outcome.verdict]
    return f"- hunk {n} ({what}): {verdict}"


def _changed_elsewhere(old_text: str, final_text: str, outcomes: list[HunkOutcome]) -> bool:
    """True when the written file differs from the old one outside the proposal's hunks."""
    if any(o.written is None for o in outcomes):
        return True
    old, final = _split(old_text), _split(final_text)
    inside = {i for o in outcomes for i in range(o.hunk.old_start, o.hunk.old_end)}
    kept = _kept_lines(old, final)
    if any(i not in kept for i in range(len(old)) if i not in inside):
        return True
    untouched = len(old) - len(inside)
    return len(final) != untouched + sum(len(o.written or ()) for o in outcomes)


def report(path_label: str, old: str | None, proposed: str, final: str) -> str:
    """The note for the model: which hunks of its proposal were applied, refused or edited, and the exact
    difference between its proposal and what was written. Empty when the user wrote the proposal unchanged."""
    if final == proposed:
        return ""
    outcomes = classify(old or "", proposed, final)
    counts = {v: sum(1 for o in outcomes if o.verdict == v) for v in ("applied", "refused", "edited")}
    parts = [f"{counts['applied']} applied", f"{counts['refused']} refused"]
    if counts["edited"]:
        parts.append(f"{counts['edited']} applied with the user's own changes")
    lines = [
        f"The user reviewed your proposed change to {path_label} and did not apply it exactly as proposed. "
        f"Of its {len(outcomes)} hunk{'s' if len(outcomes) != 1 else ''}: {', '.join(parts)}."
    ]
    lines += [_describe(n, o) for n, o in enumerate(outcomes, start=1)]
    if _changed_elsewhere(old or "", final, outcomes):
        lines.append("The user also changed lines outside your hunks.")
    diff = linediff.unified(_split(proposed), _split(final), "your proposal", "what was written", n=1)
    lines.append("How the written file differs from your proposal:\n```diff\n" + diff.rstrip("\n") + "\n```")
    if counts["refused"]:
        lines.append("Do not re-apply the refused hunks unless the user asks for them.")
    lines.append("Re-read the file before editing it again.")
    return "\n".join(lines)
