"""Unified diffs, FileDiff values, and the propose/confirm/write flow shared by the edit tools."""

from __future__ import annotations

import asyncio
from abc import abstractmethod
from pathlib import Path

from agent_lsp import linediff
from agent_lsp.errors import ToolError
from agent_lsp.events import ConfirmationDetails, FileDiff, Location
from agent_lsp.tools.base import OutputSink, P, ToolInvocation, ToolResult
from agent_lsp.tools.context import ToolContext
from agent_lsp.workspace.encoding import BinaryFileError
from agent_lsp.workspace.filesystem import disk_encoding

_NO_EOL = "\\ No newline at end of file\n"


def _lines(text: str) -> list[str]:
    # Only "\n" breaks a line, as for git and patch: str.splitlines would also split at form feeds, U+0085 and
    # U+2028, which live inside lines of real files, and show the diff on the wrong lines.
    lines = text.split("\n")
    lines = [ln + "\n" for ln in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    # A last line without a newline is marked the way git does, so the diff still applies with patch.
    if lines and not lines[-1].endswith("\n"):
        lines[-1] = lines[-1] + "\n" + _NO_EOL
    return lines


def unified_diff(path_label: str, old: str | None, new: str, context: int = 3) -> str:
    """A git-style unified diff from ``old`` (None: a new file) to ``new``; empty when they are equal."""
    if old == new:
        return ""
    before = "/dev/null" if old is None else f"a/{path_label}"
    # Bounded time on any pair of texts (a rewrite of a 50k-line file, a reordered one): see linediff.
    return linediff.unified(_lines(old or ""), _lines(new), fromfile=before, tofile=f"b/{path_label}", n=context)


def make_file_diff(path: str | Path, old: str | None, new: str, label: str | None = None) -> FileDiff:
    """The FileDiff for changing ``path`` from ``old`` to ``new``; ``label`` names it in the diff headers."""
    shown = label if label is not None else str(path).lstrip("/")
    return FileDiff(path=str(path), old_text=old, new_text=new, unified=unified_diff(shown, old, new))


class FileEditInvocation(ToolInvocation[P]):
    """The shared propose → confirm → (modify) → write flow of write_file and replace.

    The proposal is computed from the text read in ``confirmation()`` and written with that text as
    ``expected``, so a file that changes while the user looks at the diff is refused, not clobbered."""

    verb = "Edit"

    def __init__(self, ctx: ToolContext, params: P, path: Path) -> None:
        super().__init__(params)
        self.ctx = ctx
        self.path = path
        self._prepared = False
        self._old: str | None = None
        self._new = ""
        self._modified = False
        self._proposed = ""
        self._shown_diff: FileDiff | None = None

    @abstractmethod
    def propose(self, current: str | None) -> str:
        """The file's new text given its current text (None: it does not exist). Raises ToolError."""

    @abstractmethod
    def success_message(self, old: str | None, new: str) -> str:
        """What the model is told after the write."""

    @property
    def shown_path(self) -> str:
        return self.ctx.workspace.relative(self.path) if len(self.ctx.workspace.roots) == 1 else str(self.path)

    def locations(self) -> list[Location]:
        return [Location(str(self.path))]

    async def _prepare(self) -> None:
        if self.path.is_dir():
            raise ToolError(f"{self.shown_path} is a directory, not a file.", "is_directory")
        encoding = await asyncio.to_thread(disk_encoding, self.path)
        if encoding is not None and encoding.binary:
            # Refused before the user is shown a diff of bytes that a text edit would corrupt.
            raise BinaryFileError(self.shown_path)
        try:
            current: str | None = await self.ctx.fs.read_text(self.path)
        except FileNotFoundError:
            current = None
        # Matching and line-ending mapping on a large file take a while: off the event loop, so the server
        # keeps answering meanwhile.
        self._new = await asyncio.to_thread(self.propose, current)
        self._old = current
        self._prepared = True

    async def _diff(self, old: str | None, new: str) -> FileDiff:
        """The FileDiff of ``old`` → ``new``; the one shown for confirmation is reused when the write is the same
        (a large file's diff is the costliest part of an edit)."""
        shown = self._shown_diff
        if shown is not None and shown.old_text is old and shown.new_text is new:
            return shown
        self._shown_diff = await asyncio.to_thread(make_file_diff, self.path, old, new, label=self.shown_path)
        return self._shown_diff

    async def confirmation(self) -> ConfirmationDetails | None:
        await self._prepare()
        return ConfirmationDetails(
            type="edit",
            title=f"{'Create' if self._old is None else self.verb} {self.shown_path}",
            path=str(self.path),
            diff=await self._diff(self._old, self._new),
        )

    @property
    def modifiable(self) -> bool:
        return True

    def apply_modification(self, new_content: str) -> None:
        if not self._modified:
            self._proposed = self._new
        self._new = new_content
        self._modified = True

    async def execute(self, output: OutputSink) -> ToolResult:
        if not self._prepared:
            await self._prepare()
        old, new = self._old, self._new
        if not self.path.parent.exists():
            await asyncio.to_thread(self.path.parent.mkdir, parents=True, exist_ok=True)
        await self.ctx.fs.write_text(self.path, new, expected=old, label=f"{self.verb} {self.shown_path}")
        diff = await self._diff(old, new)
        added, removed = linediff.stat(diff.unified)
        message = self.success_message(old, new)
        if self._modified and new != self._proposed:
            # The user took part of the proposal or edited it: the model must know exactly what landed.
            # Off the event loop: it matches lines of three texts. Imported here: only an edit the user changed
            # needs the report.
            from agent_lsp.tools.review_report import report

            message += "\n\n" + await asyncio.to_thread(report, self.shown_path, old, self._proposed, new)
        action = "Created" if old is None else "Updated"
        return ToolResult(
            llm_content=message,
            display=f"{action} `{self.shown_path}` (+{added} -{removed})",
            diff=diff,
            touched_paths=(str(self.path),),
        )
