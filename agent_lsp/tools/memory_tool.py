"""save_memory: appends a fact to the global or project GEMINI.md under "## Gemini Added Memories"."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agent_lsp import linediff
from agent_lsp.errors import ToolError
from agent_lsp.events import ConfirmationDetails, FileDiff
from agent_lsp.tools.base import ContextTool, OutputSink, ToolInvocation, ToolResult
from agent_lsp.tools.context import ToolContext
from agent_lsp.workspace.filesystem import LocalFileSystem, read_disk_text

MEMORY_SECTION = "## Gemini Added Memories"

Scope = Literal["global", "project"]

_DESCRIPTION = """Saves one short fact to long-term memory so it is known in future sessions.

Use it only when the user asks you to remember something, or states a lasting preference or fact about
themselves or this project that will clearly matter later ("I prefer tabs", "my name is Ana", "this repo
deploys with make ship"). Do not use it for conversation context or facts that only matter now.

`fact` must be a single, self-contained sentence. `scope` "global" (default) remembers it for every
project; "project" remembers it only for this workspace, in its memory file."""

_LEADING_BULLETS = re.compile(r"^[\s-]+")
_HEADING = re.compile(r"^#{1,2}\s")


def normalize_fact(fact: str) -> str:
    """The fact as one bullet-free line (newlines and runs of spaces become one space)."""
    return _LEADING_BULLETS.sub("", " ".join(fact.split()))


def add_memory_entry(text: str, fact: str) -> str:
    """``text`` with ``- fact`` appended to its memories section; the section is added at the end if missing."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == MEMORY_SECTION), None)
    if start is None:
        body = text.rstrip("\n")
        return (body + "\n\n" if body else "") + f"{MEMORY_SECTION}\n- {fact}\n"
    end = next((i for i in range(start + 1, len(lines)) if _HEADING.match(lines[i])), len(lines))
    # After the section's last non-blank line, so blank lines before the next heading stay where they are.
    insert_at = end
    while insert_at > start + 1 and not lines[insert_at - 1].strip():
        insert_at -= 1
    lines.insert(insert_at, f"- {fact}")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class MemoryParams:
    fact: str
    scope: Scope = "global"


class MemoryTool(ContextTool):
    name = "save_memory"
    display_name = "SaveMemory"
    description = _DESCRIPTION
    # Not "think": it writes a file, so it is confirmed like other changes and refused in plan mode.
    kind = "other"
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "fact": {"type": "string", "description": "The fact to remember, as one self-contained sentence."},
            "scope": {
                "type": "string",
                "enum": ["global", "project"],
                "description": 'Where to remember it: "global" (every project, the default) or "project".',
            },
        },
        "required": ["fact"],
    }

    def check(self, params: dict[str, Any]) -> str | None:
        if not normalize_fact(str(params["fact"])):
            return "The fact must not be empty."
        return None

    def build(self, params: dict[str, Any]) -> MemoryInvocation:
        problem = self.validate(params)
        if problem:
            raise ToolError(problem, "invalid_params")
        scope: Scope = "project" if params.get("scope") == "project" else "global"
        return MemoryInvocation(MemoryParams(normalize_fact(str(params["fact"])), scope), self.ctx)

    def memory_file(self, scope: Scope) -> Path:
        return memory_file_for(self.ctx, scope)


def memory_file_for(ctx: ToolContext, scope: Scope) -> Path:
    if scope == "project":
        return ctx.workspace.primary / ctx.memory_file_name
    return ctx.global_memory_file


class MemoryInvocation(ToolInvocation[MemoryParams]):
    def __init__(self, params: MemoryParams, ctx: ToolContext) -> None:
        super().__init__(params)
        self.ctx = ctx
        self.path = memory_file_for(ctx, params.scope)
        self._modified: str | None = None

    def describe(self) -> str:
        return f'Remember ({self.params.scope}): "{self.params.fact}"'

    @property
    def modifiable(self) -> bool:
        return True

    def apply_modification(self, new_content: str) -> None:
        self._modified = new_content

    async def _read(self) -> str | None:
        if self.params.scope == "project":
            try:
                return await self.ctx.fs.read_text(self.path)
            except FileNotFoundError:
                return None
        return await asyncio.to_thread(_read_or_none, self.path)

    async def confirmation(self) -> ConfirmationDetails:
        old = await self._read()
        new = self._modified if self._modified is not None else add_memory_entry(old or "", self.params.fact)
        unified = linediff.unified(
            (old or "").splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"a/{self.path.name}" if old is not None else "/dev/null",
            tofile=f"b/{self.path.name}",
        )
        return ConfirmationDetails(
            type="edit",
            title=f"{self.describe()} in {self.path}",
            path=str(self.path),
            diff=FileDiff(path=str(self.path), old_text=old, new_text=new, unified=unified),
        )

    async def execute(self, output: OutputSink) -> ToolResult:
        old = await self._read()
        new = self._modified if self._modified is not None else add_memory_entry(old or "", self.params.fact)
        if self.params.scope == "project":
            await self.ctx.fs.write_text(self.path, new, expected=old, label="Save memory")
        else:
            # The global file is ours, not the editor's: written on disk, in its own encoding, atomically.
            await LocalFileSystem().write_text(self.path, new, expected=old, label="Save memory")
        diff = FileDiff(path=str(self.path), old_text=old, new_text=new)
        return ToolResult(
            llm_content=f'Okay, I have remembered that ({self.params.scope} memory): "{self.params.fact}"',
            display=f"Saved to {self.path}",
            diff=diff,
            touched_paths=(str(self.path),) if self.params.scope == "project" else (),
        )


def _read_or_none(path: Path) -> str | None:
    try:
        return read_disk_text(path)
    except FileNotFoundError:
        return None
