"""One session's CodeIntel over the runtime's server pool: picks the server of a file's language and root, sends it
the text the session sees (the editor's unsaved buffer included), asks, and reads the diagnostics it publishes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_lsp.child_env import ChildEnv
from agent_lsp.code_intel import lsp_json, over_lsp
from agent_lsp.code_intel.catalog import ServerSpec, spec_for
from agent_lsp.code_intel.pool import ServerPool
from agent_lsp.core.code_intel import (
    OPERATIONS,
    CodeAnswer,
    CodeDiagnostic,
    CodeIntelError,
    DiagnosticsReport,
    Operation,
    TextChange,
)

if TYPE_CHECKING:
    from agent_lsp.code_intel.server import ManagedServer

PROJECT_WAIT_S = 10.0
PROJECT_REQUEST_S = 45.0  # the bound of one project-wide request (others: the server's request_timeout)
_PROJECT_WIDE = ("findReferences", "workspaceSymbol", "incomingCalls", "goToImplementation")


class PoolCodeIntel:
    """CodeIntel for one session: ``roots`` are read on each call (``/directory add`` changes them)."""

    def __init__(
        self,
        pool: ServerPool,
        specs: Sequence[ServerSpec],
        roots: Callable[[], Sequence[Path]],
        read_text: Callable[[Path], Awaitable[str]],
        child_env: ChildEnv | None = None,
    ) -> None:
        self.pool = pool
        self.child_env = child_env
        self.specs = list(specs)
        self.roots = roots
        self.read_text = read_text

    @property
    def label(self) -> str:
        names = ", ".join(sorted({f"{s.name} ({s.language})" for s in self.specs}))
        return f"language servers started by agent-lsp: {names}"

    def operations(self) -> list[Operation]:
        known = [set(s.operations) if s.operations is not None else set(OPERATIONS) for s in self.specs]
        return [op for op in OPERATIONS if any(op in ops for ops in known)]

    def can_rename(self) -> bool:
        return any(s.rename for s in self.specs)

    def languages(self) -> list[str]:
        return [s.language for s in self.specs]

    def serves(self, path: Path) -> bool:
        return spec_for(self.specs, path) is not None and self._root(path) is not None

    def _root(self, path: Path) -> Path | None:
        inside = [r for r in self.roots() if path == r or r in path.parents]
        return max(inside, key=lambda r: len(r.parts)) if inside else None

    async def _server_for(self, path: Path) -> ManagedServer | None:
        spec, root = spec_for(self.specs, path), self._root(path)
        if spec is None or root is None:
            return None
        server = await self.pool.server(spec, root, self.child_env)
        # Every file the server holds open is sent again where it changed (a shell command, another session, the
        # user): a server answers from the open text, and a stale one would misplace references and renames.
        others = [p for p in server.open_paths() if p != path]
        texts = await asyncio.gather(*(self.read_text(p) for p in others), return_exceptions=True)
        for other, text in zip(others, texts, strict=True):
            if isinstance(text, str):
                server.sync(other, text)
        try:
            current = await self.read_text(path)
        except (FileNotFoundError, IsADirectoryError) as exc:
            raise CodeIntelError(f"{path} cannot be read: {exc}") from exc
        server.sync(path, current)
        return server

    async def ask(self, operation: Operation, path: Path, line: int, character: int, query: str) -> CodeAnswer | None:
        server = await self._server_for(path)
        if server is None:
            return None
        if operation not in over_lsp.supported(server.capabilities):
            raise CodeIntelError(f"{server.spec.name} does not support {operation}")
        if operation in _PROJECT_WIDE:
            await _project_read(server, path)
            # A question about the whole project on a cold server on a busy machine took 15-20 s here (bench).
            return await over_lsp.ask(_longer(server), operation, path, line, character, query)
        return await over_lsp.ask(server.request, operation, path, line, character, query)

    async def rename(
        self, path: Path, line: int, character: int, new_name: str
    ) -> Mapping[Path, list[TextChange]] | None:
        server = await self._server_for(path)
        if server is None:
            return None
        if not over_lsp.can_rename(server.capabilities):
            raise CodeIntelError(f"{server.spec.name} does not support rename")
        await _project_read(server, path)  # a rename changes only the files a cold server has read so far
        try:
            return await over_lsp.rename(_longer(server), path, line, character, new_name)
        except ValueError as exc:
            raise CodeIntelError(str(exc)) from exc

    async def diagnostics(self, paths: Sequence[Path], *, after_edit: bool, budget_s: float) -> DiagnosticsReport:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + budget_s
        served = [p for p in paths if self.serves(p)]

        async def one(path: Path) -> tuple[Path, tuple[CodeDiagnostic, ...], bool]:
            # A server still starting (cold) keeps starting in the background; the edit does not wait for it.
            starting = asyncio.ensure_future(self._server_for(path))
            starting.add_done_callback(_retrieve)
            try:
                server = await asyncio.wait_for(asyncio.shield(starting), max(0.0, deadline - loop.time()))
            except TimeoutError:
                return path, (), False
            if server is None:
                return path, (), True
            items, settled = await server.diagnostics(path, deadline)
            return path, lsp_json.diagnostics(path, items), settled

        found = await asyncio.gather(*(one(p) for p in served))
        return DiagnosticsReport({p: d for p, d, _ in found}, frozenset(p for p, _, ok in found if not ok))


async def _project_read(server: ManagedServer, path: Path) -> None:
    """A cold server (tsserver loading its project) answers project-wide questions from the files it has read so
    far: its first diagnostics of the file, and the end of the work it reports, say it is done (bounded)."""
    deadline = asyncio.get_running_loop().time() + PROJECT_WAIT_S
    if not server.analysed(path):
        await server.diagnostics(path, deadline)
    await server.idle(deadline)


def _longer(server: ManagedServer) -> over_lsp.Requester:
    async def request(method: str, params: Any) -> Any:
        return await server.request(method, params, max(PROJECT_REQUEST_S, server.request_timeout))

    return request


def _retrieve(task: asyncio.Future[Any]) -> None:
    """A start nobody waits for any more: its failure is reported by the next question, not logged as lost."""
    if not task.cancelled():
        task.exception()
