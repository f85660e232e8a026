"""Reading the chosen files into model parts for read_many_files and @path mentions, within size limits."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from agent_lsp.model.base import InlineData, Part
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.file_utils import MAX_FILE_BYTES, MAX_LINES_PER_READ, classify, clip_line, shown, split_lines

MAX_FILES = 500
MAX_TOTAL_CHARS = 1_000_000


@dataclass
class Loaded:
    parts: list[Part] = field(default_factory=list)
    read: list[Path] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


async def load(ctx: ToolContext, files: dict[Path, bool], header: str) -> Loaded:
    """Read the chosen files in path order into parts, each introduced by ``header.format(path=...)``.

    Text goes through ctx.fs (so unsaved editor buffers win); media only when it was named explicitly."""
    out = Loaded()
    budget = MAX_TOTAL_CHARS
    for path in sorted(files):
        where = shown(ctx, path)
        if len(out.read) >= MAX_FILES:
            out.skipped.append((where, f"over the limit of {MAX_FILES} files"))
            continue
        try:
            size = (await asyncio.to_thread(path.stat)).st_size
        except OSError:
            out.skipped.append((where, "could not be read"))
            continue
        if size > MAX_FILE_BYTES:
            out.skipped.append((where, "larger than 20 MB"))
            continue
        kind, mime = await asyncio.to_thread(classify, path)
        if kind == "binary":
            out.skipped.append((where, "binary file"))
            continue
        if kind != "text":
            if not files[path]:
                out.skipped.append((where, f"{kind} file (name it explicitly to include it)"))
                continue
            data = await asyncio.to_thread(path.read_bytes)
            out.parts.append(Part(text=header.format(path=path, shown=where)))
            out.parts.append(Part(inline_data=InlineData(mime, data)))
            out.read.append(path)
            continue
        try:
            text = await ctx.fs.read_text(path)
        except (FileNotFoundError, OSError):
            out.skipped.append((where, "could not be read"))
            continue
        body = _clip(text)
        if len(body) > budget:
            out.skipped.append((where, "output size limit reached"))
            continue
        budget -= len(body)
        out.parts.append(Part(text=header.format(path=path, shown=where) + body))
        out.read.append(path)
    return out


def _clip(text: str) -> str:
    lines = split_lines(text)
    cut = [clip_line(ln)[0] for ln in lines[:MAX_LINES_PER_READ]]
    body = "\n".join(cut)
    if len(lines) > MAX_LINES_PER_READ:
        body += (
            f"\n[Truncated: showing lines 1-{MAX_LINES_PER_READ} of {len(lines)}; use read_file with "
            f"start_line={MAX_LINES_PER_READ + 1} to read more.]"
        )
    return body
