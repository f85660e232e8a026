"""rename_symbol: the code intelligence's rename of a symbol, as one change to every file it touches, shown to the
user as one diff per file and written through the session's file system like any other edit."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_lsp import linediff
from agent_lsp.core.code_intel import CodeIntel, CodeIntelError, TextChange
from agent_lsp.errors import ToolError
from agent_lsp.events import ConfirmationDetails, FileDiff, Location
from agent_lsp.tools.base import ContextTool, OutputSink, ToolInvocation, ToolResult
from agent_lsp.tools.code_answers import index_to_utf16, utf16_to_index
from agent_lsp.tools.code_nav import snap
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.diffing import make_file_diff
from agent_lsp.tools.file_utils import path_problem, resolve, split_lines

_NAME = re.compile(r"^\w+$")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def apply_changes(text: str, changes: list[TextChange]) -> str:
    """``text`` with LSP-style changes applied (UTF-16 columns; lines broken at CRLF, CR or LF). Raises ValueError
    for overlapping changes."""
    starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]

    def offset(line: int, character: int) -> int:
        if line >= len(starts):
            return len(text)
        start = starts[line]
        end = starts[line + 1] if line + 1 < len(starts) else len(text)
        content = _LINE_BREAK.sub("", text[start:end])
        return start + utf16_to_index(content, character)

    spans = sorted(
        ((offset(c.span.line, c.span.character), offset(c.span.end_line, c.span.end_character), c.new_text))
        for c in changes
    )[::-1]
    out, limit = text, len(text) + 1
    for begin, end, new in spans:
        if end > limit:
            raise ValueError("the language server's rename has overlapping changes")
        out, limit = out[:begin] + new + out[end:], begin
    return out


@dataclass(frozen=True)
class RenameParams:
    path: Path
    line: int
    character: int
    new_name: str


class RenameSymbolTool(ContextTool):
    name = "rename_symbol"
    display_name = "Rename symbol"
    kind = "edit"
    description = (
        "Renames a symbol (variable, function, class, method, …) everywhere it is used, as the language's own "
        "tooling understands it — unlike a text replace it skips other things with the same name. file_path, line "
        "and character (1-based, as an editor shows them) point at the symbol (a column a little off finds the "
        "nearest name on that line); new_name is its new name. The user reviews the whole change, one diff per "
        "file, before it is written."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "description": "Absolute path of a file where the symbol appears."},
            "line": {"type": "integer", "minimum": 1, "description": "1-based line of the symbol."},
            "character": {"type": "integer", "minimum": 1, "description": "1-based column of the symbol."},
            "new_name": {"type": "string", "description": "The symbol's new name."},
        },
        "required": ["file_path", "line", "character", "new_name"],
    }

    def __init__(self, ctx: ToolContext, intel: CodeIntel) -> None:
        super().__init__(ctx)
        self.intel = intel

    def check(self, params: dict[str, Any]) -> str | None:
        if not _NAME.match(params["new_name"]):
            return f"new_name must be an identifier (letters, digits, _), not {params['new_name']!r}."
        return path_problem(self.ctx, params["file_path"])

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        path = resolve(self.ctx, params["file_path"])
        return RenameInvocation(
            self.ctx, self.intel, RenameParams(path, params["line"], params["character"], params["new_name"])
        )


class RenameInvocation(ToolInvocation[RenameParams]):
    def __init__(self, ctx: ToolContext, intel: CodeIntel, params: RenameParams) -> None:
        super().__init__(params)
        self.ctx = ctx
        self.intel = intel
        self.old_name = ""
        self._files: list[tuple[Path, str, str]] = []  # (path, text it was computed from, new text)
        self._diffs: list[FileDiff] = []

    def describe(self) -> str:
        p = self.params
        where = f"{self.ctx.workspace.relative(p.path)}:{p.line}"
        return f"Rename {self.old_name or 'symbol'} → {p.new_name} ({where})"

    def locations(self) -> list[Location]:
        changed = [Location(str(path)) for path, _, _ in self._files]
        return changed or [Location(str(self.params.path), self.params.line)]

    async def _prepare(self) -> None:
        p = self.params
        shown = self.ctx.workspace.relative(p.path)
        try:
            lines = split_lines(await self.ctx.fs.read_text(p.path))
        except FileNotFoundError as exc:
            raise ToolError(f"File not found: {shown}", "file_not_found") from exc
        if p.line > len(lines):
            raise ToolError(f"{shown} has {len(lines)} lines; line {p.line} does not exist.", "invalid_params")
        found = snap(lines[p.line - 1], p.character)
        if found is None:
            raise ToolError(f"Line {p.line} of {shown} has no identifier to rename.", "invalid_params")
        index, self.old_name = found
        column = index_to_utf16(lines[p.line - 1], index)
        try:
            changes = await self.intel.rename(p.path, p.line - 1, column, p.new_name)
        except CodeIntelError as exc:
            raise ToolError(f"rename failed: {exc}", "code_intel_failed") from exc
        if changes is None:
            raise ToolError(f"No code intelligence serves {shown}; rename with replace instead.", "code_intel_failed")
        if not changes:
            raise ToolError(f"Nothing to rename at {shown}:{p.line} ({self.old_name}).", "code_intel_failed")
        await self._plan(changes)

    async def _plan(self, changes: Mapping[Path, list[TextChange]]) -> None:
        outside = [str(path) for path in changes if not self.ctx.workspace.contains(path)]
        if outside:
            raise ToolError(
                f"The rename would change files outside the workspace ({', '.join(outside[:3])}); nothing was "
                "changed. Rename something defined in the workspace.",
                "path_not_in_workspace",
            )
        for path, edits in changes.items():
            old = await self.ctx.fs.read_text(path)
            try:
                new = await asyncio.to_thread(apply_changes, old, edits)
            except ValueError as exc:
                raise ToolError(f"rename failed: {exc}", "code_intel_failed") from exc
            if new != old:
                self._files.append((path, old, new))
        label = self.ctx.workspace.relative
        self._diffs = [
            await asyncio.to_thread(make_file_diff, path, old, new, label=label(path)) for path, old, new in self._files
        ]
        if not self._files:
            raise ToolError(f"Renaming {self.old_name} to {self.params.new_name} changes nothing.", "code_intel_failed")

    async def confirmation(self) -> ConfirmationDetails | None:
        await self._prepare()
        first = self._diffs[0]
        return ConfirmationDetails(
            type="edit",
            title=f"Rename {self.old_name} → {self.params.new_name} in {len(self._files)} file(s)",
            path=first.path,
            diff=first,
            extra_diffs=tuple(self._diffs[1:]),
        )

    async def execute(self, output: OutputSink) -> ToolResult:
        if not self._files:
            await self._prepare()
        written: list[str] = []
        label = f"Rename {self.old_name} → {self.params.new_name}"
        for path, old, new in self._files:
            try:
                await self.ctx.fs.write_text(path, new, expected=old, label=label)
            except ToolError as exc:
                done = f" Already renamed in: {', '.join(written)}." if written else " Nothing was changed."
                raise ToolError(f"{exc}.{done}", exc.error_type) from exc
            written.append(self.ctx.workspace.relative(path))
        added = sum(linediff.stat(d.unified)[0] for d in self._diffs)
        places = sum(d.unified.count("\n+") for d in self._diffs) or added
        message = (
            f"Renamed {self.old_name} to {self.params.new_name}: {len(written)} file(s) changed ({', '.join(written)})."
        )
        return ToolResult(
            llm_content=message,
            display=f"Renamed `{self.old_name}` → `{self.params.new_name}` in {len(written)} file(s) ({places} lines)",
            diff=self._diffs[0],
            extra_diffs=tuple(self._diffs[1:]),
            touched_paths=tuple(str(path) for path, _, _ in self._files),
        )
