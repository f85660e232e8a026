"""Builder: the session's GEMINI.md memory, held in one small object that /memory reload and add refresh."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lsp.workspace.roots import Workspace

if TYPE_CHECKING:
    from agent_lsp.config.memory import JitMemoryLoader, MemoryResult


class Memory:
    """What the system instruction says from memory files. ``reload`` rereads them (the system prompt reads
    ``text`` on every request, so the next request sees the change); ``jit`` adds files in folders tools touch."""

    def __init__(
        self, workspace: Workspace, file_names: Sequence[str], *, trusted: bool, extra_files: Sequence[Path]
    ) -> None:
        from agent_lsp.config.memory import JitMemoryLoader

        self._workspace = workspace
        self._file_names = list(file_names)
        self._trusted = trusted
        self._extra_files = list(extra_files)  # extensions' context files
        self.result: MemoryResult = self._load()
        self.jit: JitMemoryLoader = JitMemoryLoader(
            workspace.roots, self._file_names, self.result.files, trusted=trusted
        )

    @property
    def text(self) -> str:
        return self.result.text

    @property
    def files(self) -> list[str]:
        return [str(f) for f in self.result.files]

    async def reload(self) -> str:
        """Reread the memory files (off the event loop); says what was read, for /memory reload."""
        self.result = await asyncio.to_thread(self._load)
        return f"Reloaded memory from {len(self.result.files)} file(s) ({len(self.result.text)} characters)."

    def _load(self) -> MemoryResult:
        from agent_lsp.config.memory import load_memory

        # The roots as they are now: an editor may have added a workspace folder since the session started.
        return load_memory(
            self._workspace.roots, file_names=self._file_names, trusted=self._trusted, extra_files=self._extra_files
        )
