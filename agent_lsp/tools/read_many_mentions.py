"""Expanding ``@path`` mentions in prompts and ``@{path}`` in custom commands, with read_many_files' rules."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from agent_lsp.errors import PathOutsideWorkspace
from agent_lsp.model.base import Part
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.read_many_collect import collect
from agent_lsp.tools.read_many_load import load


async def read_paths_for_prompt(ctx: ToolContext, paths: list[str]) -> tuple[list[Part], list[str]]:
    """Expand the ``@path`` mentions of a prompt: parts to append to it, and warnings for the user about
    paths that were missing, ignored, outside the workspace or unreadable. Folders are read recursively."""
    stop = threading.Event()
    try:
        found = await asyncio.to_thread(collect, ctx, paths, stop=stop)
    finally:
        stop.set()
    for path in found.files:
        found.files[path] = True  # a mentioned image or PDF is wanted
    loaded = await load(ctx, found.files, "\nContent from @{shown}:\n")
    warnings = [f"Skipped @{what}: {why}" for what, why in found.skipped + loaded.skipped]
    if found.ignored:
        warnings.append(f"{found.ignored} ignored file(s) or folder(s) were left out")
    if not loaded.parts:
        return [], warnings
    parts = [Part(text="\n--- Content from referenced files ---"), *loaded.parts]
    parts.append(Part(text="\n--- End of content ---"))
    return parts, warnings


async def read_path_for_command(ctx: ToolContext, path: str) -> tuple[list[Part], list[str]]:
    """``@{path}`` in a custom command: a file's text as it is, a folder's files each under a header. The
    same ignore files and workspace boundary as ``@path`` apply: ([], []) when ignore files leave it all out,
    a warning when it is missing, outside the workspace or unreadable."""
    stop = threading.Event()
    try:
        found = await asyncio.to_thread(collect, ctx, [path], stop=stop)
    finally:
        stop.set()
    skipped = [(what, why) for what, why in found.skipped if not why.startswith("ignored")]
    if not found.files:
        return [], [f"{what}: {why}" for what, why in skipped]
    for f in found.files:
        found.files[f] = True
    is_dir = len(found.files) > 1 or next(iter(found.files)) != _resolved(ctx, path)
    loaded = await load(ctx, found.files, "--- {shown} ---\n" if is_dir else "")
    warnings = [f"{what}: {why}" for what, why in skipped + loaded.skipped]
    if not is_dir:
        return loaded.parts, warnings
    parts = [Part(text=f"--- Start of content for directory: {path} ---\n")]
    for part in loaded.parts:
        parts.append(part)
        if part.text is not None:
            parts.append(Part(text="\n"))
    parts.append(Part(text=f"--- End of content for directory: {path} ---"))
    return parts, warnings


def _resolved(ctx: ToolContext, path: str) -> Path | None:
    try:
        return ctx.workspace.resolve(path.strip())
    except PathOutsideWorkspace:
        return None
