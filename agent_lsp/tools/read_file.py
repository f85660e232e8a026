"""read_file: one file's text (a line window of it), or an image / PDF / media file as inline data."""

from __future__ import annotations

import asyncio
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_lsp.errors import ToolError
from agent_lsp.events import Location
from agent_lsp.model.base import InlineData, Part
from agent_lsp.tools.base import ContextTool, OutputSink, ToolInvocation, ToolResult
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.file_utils import (
    MAX_FILE_BYTES,
    MAX_LINES_PER_READ,
    classify,
    clip_line,
    path_problem,
    resolve,
    shown,
    split_lines,
)


@dataclass(frozen=True)
class ReadFileParams:
    path: Path
    start_line: int | None  # 1-based, inclusive
    end_line: int | None


class ReadFileTool(ContextTool):
    name = "read_file"
    display_name = "ReadFile"
    kind = "read"
    description = (
        "Reads one file from the workspace and returns its text. Large files come back in windows of at most "
        f"{MAX_LINES_PER_READ} lines: the result then starts with a note saying which lines you got and how to "
        "ask for the next ones (start_line / end_line, 1-based and inclusive). Lines longer than 2000 characters "
        "are shortened. Images (PNG, JPEG, GIF, WEBP, BMP), PDF, audio and video files are returned as data you "
        "can look at; other binary files are refused. Files larger than 20 MB are refused. Prefer reading the "
        "whole file unless it is large, and read the exact current text before editing it."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "file_path": {
                "type": "string",
                "description": "The file to read: an absolute path, or a path relative to the workspace root.",
            },
            "start_line": {
                "type": "integer",
                "minimum": 1,
                "description": "Optional: first line to read (1-based). Use for large files.",
            },
            "end_line": {
                "type": "integer",
                "minimum": 1,
                "description": f"Optional: last line to read (1-based, inclusive). At most {MAX_LINES_PER_READ} "
                "lines are returned per call.",
            },
        },
        "required": ["file_path"],
    }

    def check(self, params: dict[str, Any]) -> str | None:
        for key, low in (("offset", 0), ("limit", 1)):
            value = params.get(key)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < low):
                return f"params/{key} must be an integer >= {low}"
        start, end = _window(params)
        if start is not None and end is not None and end < start:
            return f"end_line ({end}) must not be before start_line ({start})."
        return path_problem(self.ctx, params["file_path"])

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        start, end = _window(params)
        return ReadFileInvocation(self.ctx, ReadFileParams(resolve(self.ctx, params["file_path"]), start, end))


def _window(params: dict[str, Any]) -> tuple[int | None, int | None]:
    """(start_line, end_line) from the current names, or from the older 0-based offset / limit pair."""
    start: int | None = params.get("start_line")
    end: int | None = params.get("end_line")
    if start is None and params.get("offset") is not None:
        start = int(params["offset"]) + 1
    if end is None and params.get("limit") is not None:
        end = (start or 1) + int(params["limit"]) - 1
    return start, end


class ReadFileInvocation(ToolInvocation[ReadFileParams]):
    def __init__(self, ctx: ToolContext, params: ReadFileParams) -> None:
        super().__init__(params)
        self.ctx = ctx

    def describe(self) -> str:
        p = self.params
        where = shown(self.ctx, p.path)
        if p.start_line is None and p.end_line is None:
            return f"Read {where}"
        first = p.start_line or 1
        return f"Read {where} (lines {first}-{p.end_line})" if p.end_line else f"Read {where} (from line {first})"

    def locations(self) -> list[Location]:
        return [Location(str(self.params.path), self.params.start_line or 1)]

    async def execute(self, output: OutputSink) -> ToolResult:
        p = self.params
        where = shown(self.ctx, p.path)
        touched = (str(p.path),)
        try:
            st = await asyncio.to_thread(p.path.stat)
        except FileNotFoundError:
            st = None  # it may still be an unsaved editor buffer
        except OSError as exc:
            raise ToolError(f"Cannot read {where}: {exc.strerror or exc}", "read_error") from exc
        if st is not None:
            if stat.S_ISDIR(st.st_mode):
                raise ToolError(f"{where} is a directory, not a file; use list_directory to see its entries.")
            if not stat.S_ISREG(st.st_mode):
                raise ToolError(f"{where} is not a regular file (a pipe, socket or device).", "not_a_file")
            if st.st_size > MAX_FILE_BYTES:
                mb = st.st_size / (1024 * 1024)
                raise ToolError(f"{where} is {mb:.1f} MB; files over 20 MB are not read.", "file_too_large")
            kind, mime = await asyncio.to_thread(classify, p.path)
            if kind == "binary":
                raise ToolError(
                    f"{where} is a binary file ({mime}); its content cannot be shown as text.", "binary_file"
                )
            if kind != "text":
                data = await asyncio.to_thread(p.path.read_bytes)
                return ToolResult(
                    llm_content=[Part(inline_data=InlineData(mime, data))],
                    display=f"Read {kind} file {where} ({len(data)} bytes)",
                    touched_paths=touched,
                )
        try:
            text = await self.ctx.fs.read_text(p.path)
        except FileNotFoundError:
            raise ToolError(f"File not found: {where}", "file_not_found") from None
        except OSError as exc:
            raise ToolError(f"Cannot read {where}: {exc.strerror or exc}", "read_error") from exc
        return self._text_result(text, where, touched)

    def _text_result(self, text: str, where: str, touched: tuple[str, ...]) -> ToolResult:
        p = self.params
        lines = split_lines(text)
        total = len(lines)
        if total == 0:
            return ToolResult(llm_content="", display=f"{where} is empty", touched_paths=touched)
        start = p.start_line or 1
        if start > total:
            raise ToolError(f"start_line {start} is past the end of {where}, which has {total} lines.", "bad_range")
        last = min(p.end_line or total, start + MAX_LINES_PER_READ - 1, total)
        clipped = 0
        shown_lines: list[str] = []
        for line in lines[start - 1 : last]:
            cut, was_cut = clip_line(line)
            clipped += was_cut
            shown_lines.append(cut)
        body = "\n".join(shown_lines)
        partial = start > 1 or last < total
        if not partial and not clipped:
            return ToolResult(llm_content=body, display=f"Read {total} lines from {where}", touched_paths=touched)
        notes = ["IMPORTANT: The file content has been truncated."]
        notes.append(f"Status: Showing lines {start}-{last} of {total} total lines.")
        if last < total:
            notes.append(
                f"Action: To read more, call read_file again with start_line={last + 1} "
                f"(up to {MAX_LINES_PER_READ} lines per call)."
            )
        elif start > 1:
            notes.append("Action: Earlier lines exist; call read_file with start_line=1 to read from the top.")
        if clipped:
            notes.append(f"Note: {clipped} line(s) longer than 2000 characters were shortened.")
        content = "\n".join(notes) + "\n\n--- FILE CONTENT (truncated) ---\n" + body
        return ToolResult(
            llm_content=content,
            display=f"Read lines {start}-{last} of {total} from {where}",
            touched_paths=touched,
        )
