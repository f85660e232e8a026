"""read_many_files: several files (paths, folders, globs) concatenated for the model, within size limits; the same
reading expands ``@path`` mentions in prompts and ``@{path}`` in custom commands. Which files: read_many_collect."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_lsp.errors import PathOutsideWorkspace
from agent_lsp.events import Location
from agent_lsp.model.base import InlineData, Part
from agent_lsp.tools.base import ContextTool, OutputSink, ToolInvocation, ToolResult
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.file_utils import (
    MAX_FILE_BYTES,
    MAX_LINES_PER_READ,
    classify,
    clip_line,
    glob_problem,
    has_glob,
    shown,
    split_lines,
)
from agent_lsp.tools.ls import FILTER_OPTIONS_SCHEMA
from agent_lsp.tools.read_many_collect import collect


async def read_paths_for_prompt(ctx: ToolContext, paths: list[str]) -> tuple[list[Part], list[str]]:
    """Expand the ``@path`` mentions of a prompt: parts to append to it (unframed: core/mentions.py frames them),
    and warnings for the user about paths that were missing, ignored, outside the workspace or unreadable. Folders
    are read recursively."""
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
    # The parts only: the prompt's expander frames them, together with any MCP resources, once per prompt.
    return loaded.parts, warnings


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


@dataclass(frozen=True)
class ReadManyParams:
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    recursive: bool
    use_default_excludes: bool
    respect_git: bool | None
    respect_gemini: bool | None


class ReadManyFilesTool(ContextTool):
    name = "read_many_files"
    display_name = "ReadManyFiles"
    kind = "read"
    description = (
        "Reads several files at once and returns them concatenated, each introduced by a '--- <absolute path> ---' "
        "line. `include` takes file paths, folders (read recursively) and globs such as 'src/**/*.ts' or '*.md' "
        "(a glob without '/' matches at any depth). Skips files matched by .gitignore / .geminiignore, binary "
        "files, and by default dependency / build folders (node_modules, dist, build, .venv, ...) and lock "
        f"files. Images and PDFs are included only when named explicitly or by extension. Each file is cut at "
        f"{MAX_LINES_PER_READ} lines; at most {MAX_FILES} files per call. Use it to take in a set of related files; "
        "use read_file for a single file."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "include": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "description": "Paths, folders or globs to read, relative to the workspace root or absolute, "
                "e.g. ['src/**/*.py', 'README.md'].",
            },
            "exclude": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Optional: globs of paths to leave out, e.g. ['**/*.test.ts', 'fixtures'].",
            },
            "recursive": {"type": "boolean", "description": "Optional: descend into folders. Default true."},
            "useDefaultExcludes": {
                "type": "boolean",
                "description": "Optional: skip dependency / build folders and lock files. Default true.",
            },
            "file_filtering_options": FILTER_OPTIONS_SCHEMA,
        },
        "required": ["include"],
    }

    def check(self, params: dict[str, Any]) -> str | None:
        include = [p for p in params["include"] if p.strip()]
        if not include:
            return "include must name at least one path or glob."
        for pattern in [p.strip().removeprefix("@") for p in include if has_glob(p)] + list(
            params.get("exclude") or ()
        ):
            problem = glob_problem(pattern.strip("/"))
            if problem:
                return problem
        return None

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        options = params.get("file_filtering_options") or {}
        return ReadManyFilesInvocation(
            self.ctx,
            ReadManyParams(
                include=tuple(p for p in params["include"] if p.strip()),
                exclude=tuple(params.get("exclude") or ()),
                recursive=bool(params.get("recursive", True)),
                use_default_excludes=bool(params.get("useDefaultExcludes", True)),
                respect_git=options.get("respect_git_ignore"),
                respect_gemini=options.get("respect_gemini_ignore"),
            ),
        )


class ReadManyFilesInvocation(ToolInvocation[ReadManyParams]):
    def __init__(self, ctx: ToolContext, params: ReadManyParams) -> None:
        super().__init__(params)
        self.ctx = ctx

    def describe(self) -> str:
        shown_list = ", ".join(self.params.include[:5]) + (", ..." if len(self.params.include) > 5 else "")
        return f"Read files: {shown_list}"

    def locations(self) -> list[Location]:
        out: list[Location] = []
        for entry in self.params.include:
            if not has_glob(entry):
                try:
                    out.append(Location(str(self.ctx.workspace.resolve(entry))))
                except PathOutsideWorkspace:
                    continue
        return out

    async def execute(self, output: OutputSink) -> ToolResult:
        p = self.params
        stop = threading.Event()
        try:
            found = await asyncio.to_thread(
                collect,
                self.ctx,
                list(p.include),
                p.exclude,
                recursive=p.recursive,
                use_default_excludes=p.use_default_excludes,
                respect_git=p.respect_git,
                respect_gemini=p.respect_gemini,
                stop=stop,
            )
        finally:
            stop.set()
        loaded = await load(self.ctx, found.files, "--- {path} ---\n\n")
        skipped = found.skipped + loaded.skipped
        notes: list[str] = [f"- {what}: {why}" for what, why in skipped]
        if found.ignored:
            notes.append(f"- {found.ignored} file(s) or folder(s) ignored by .gitignore / .geminiignore")
        if not loaded.read:
            text = "No files matching the criteria were found or all were skipped."
            if notes:
                text += "\nSkipped:\n" + "\n".join(notes)
            return ToolResult(llm_content=text, display=text)
        parts: list[Part] = []
        for part in loaded.parts:
            parts.append(Part(text=part.text + "\n\n") if part.text is not None and part.text.strip() else part)
        parts.append(Part(text="--- End of content ---"))
        if notes:
            parts.append(Part(text="\nSkipped:\n" + "\n".join(notes)))
        display_lines = [f"Read **{len(loaded.read)}** file(s):"]
        display_lines += [f"- `{shown(self.ctx, f)}`" for f in loaded.read[:10]]
        if len(loaded.read) > 10:
            display_lines.append(f"- ...and {len(loaded.read) - 10} more")
        if notes:
            display_lines.append(f"\nSkipped {len(notes)}:")
            display_lines += notes[:10]
        return ToolResult(
            llm_content=parts, display="\n".join(display_lines), touched_paths=tuple(str(f) for f in loaded.read)
        )
