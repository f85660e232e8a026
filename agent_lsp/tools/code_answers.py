"""The lsp tool's answers as compact text a model reads well: ``path:LINE:COL: source line``, grouped by file and
capped; a hover as its signature and the first paragraph of its documentation; outlines indented by nesting."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from agent_lsp.core.code_intel import CodeAnswer, CodeLocation, CodeSymbol, Operation

MAX_LOCATIONS = 50
MAX_LINE = 200  # characters of a source line shown next to its location

_WHAT = {"goToDefinition": "definition", "findReferences": "reference", "goToImplementation": "implementation"}
Lines = Callable[[Path], Awaitable[list[str] | None]]
"""The lines of a file the model may read (None: outside the workspace or unreadable)."""


def utf16_to_index(line: str, character: int) -> int:
    """The string index of a UTF-16 column in ``line``."""
    units = 0
    for i, ch in enumerate(line):
        if units >= character:
            return i
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


def index_to_utf16(line: str, index: int) -> int:
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in line[:index])


async def _source(lines: Lines, loc: CodeLocation, cache: dict[Path, list[str] | None]) -> str:
    if loc.path not in cache:
        cache[loc.path] = await lines(loc.path)
    text = cache[loc.path]
    if text is None or loc.span.line >= len(text):
        return ""
    shown = text[loc.span.line].strip()
    return shown if len(shown) <= MAX_LINE else shown[:MAX_LINE] + "…"


def _column(loc: CodeLocation, cache: dict[Path, list[str] | None]) -> int:
    """The 1-based column people read: characters, not UTF-16 units, where the line is known."""
    text = cache.get(loc.path)
    if text is None or loc.span.line >= len(text):
        return loc.span.character + 1
    return utf16_to_index(text[loc.span.line], loc.span.character) + 1


async def _located(
    locs: Sequence[CodeLocation], shown: Callable[[Path], str], lines: Lines, cache: dict[Path, list[str] | None]
) -> list[str]:
    """One line per location, grouped by file in order of first appearance."""
    order = list(dict.fromkeys(loc.path for loc in locs))
    out = []
    for path in order:
        for loc in sorted((x for x in locs if x.path == path), key=lambda x: (x.span.line, x.span.character)):
            source = await _source(lines, loc, cache)
            where = f"{shown(loc.path)}:{loc.span.line + 1}:{_column(loc, cache)}"
            out.append(f"{where}: {source}" if source else where)
    return out


def _more(total: int, shown: int, what: str) -> list[str]:
    return [f"… and {total - shown} more {what}"] if total > shown else []


def hover_summary(text: str) -> str:
    """The signature (its first code block) and the first paragraph of the documentation after it."""
    blocks = re.findall(r"```[^\n]*\n(.*?)```", text, flags=re.DOTALL)
    signature = blocks[0].strip() if blocks else ""
    rest = re.sub(r"```.*?```", "\n\n", text, flags=re.DOTALL)
    rest = re.sub(r"(?m)^\s*([-*_])(\s*\1){2,}\s*$", "\n", rest)  # horizontal rules separate, never say anything
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", rest) if p.strip()]
    doc = paragraphs[0] if paragraphs else ""
    if not signature and not blocks:
        return doc or text.strip()
    return "\n\n".join(part for part in (signature, doc) if part)


async def render(
    op: Operation,
    answer: CodeAnswer,
    *,
    target: str,
    shown: Callable[[Path], str],
    lines: Lines,
) -> str:
    """The answer to ``op`` about ``target`` (the symbol's name, or the file for documentSymbol)."""
    cache: dict[Path, list[str] | None] = {}
    if op == "hover":
        return hover_summary(answer.hover) if answer.hover else f"No hover information for {target}."
    if op in ("goToDefinition", "findReferences", "goToImplementation"):
        what = _WHAT[op]
        locs = answer.locations
        if not locs:
            return f"No {what}s of {target} found."
        files = len({loc.path for loc in locs})
        head = f"{len(locs)} {what}{'s' if len(locs) != 1 else ''} of {target}" + (
            f" in {files} files:" if files > 1 else ":"
        )
        body = await _located(locs[:MAX_LOCATIONS], shown, lines, cache)
        return "\n".join([head, *body, *_more(len(locs), MAX_LOCATIONS, f"{what}s")])
    if op == "documentSymbol":
        if not answer.symbols:
            return f"No symbols in {target}."
        rows = [f"{'  ' * s.depth}{s.kind} {s.name} (line {s.location.span.line + 1})" for s in answer.symbols]
        cap = MAX_LOCATIONS * 4  # an outline is one short line per symbol
        return "\n".join([f"Symbols in {target}:", *rows[:cap], *_more(len(rows), cap, "symbols")])
    if op == "workspaceSymbol":
        if not answer.symbols:
            return f"No symbols match {target}."
        symbols = answer.symbols[:MAX_LOCATIONS]
        rows = []
        for s in symbols:
            where = (await _located([s.location], shown, lines, cache))[0]
            rows.append(f"{s.kind} {s.name}{f' in {s.container}' if s.container else ''} — {where}")
        return "\n".join([f"Symbols matching {target}:", *rows, *_more(len(answer.symbols), MAX_LOCATIONS, "symbols")])
    return await _calls(op, answer.symbols, target, shown, lines, cache)


async def _calls(
    op: Operation,
    found: Sequence[CodeSymbol],
    target: str,
    shown: Callable[[Path], str],
    lines: Lines,
    cache: dict[Path, list[str] | None],
) -> str:
    incoming = op == "incomingCalls"
    if not found:
        return f"No {'callers of' if incoming else 'calls made by'} {target} found."
    rows = [f"{'Callers of' if incoming else 'Calls made by'} {target}:"]
    budget = MAX_LOCATIONS
    for s in found:
        if budget <= 0:
            rows.append(f"… and more {'callers' if incoming else 'callees'}")
            break
        where = f"{shown(s.location.path)}:{s.location.span.line + 1}"
        rows.append(f"{s.kind} {s.name} ({where})")
        # Incoming: where it calls the target (in its own file). Outgoing: where the target calls it.
        sites = await _located(s.sites[:budget], shown, lines, cache)
        rows += [f"  {site}" for site in sites]
        budget -= max(1, len(sites))
    return "\n".join(rows)
