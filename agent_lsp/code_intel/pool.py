"""The runtime's language servers: one per workspace root and language, started on first use, shared by every
session of the process and stopped with it. A server that dies is started again once; the second time it stays
down and every question about its files says why."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lsp.child_env import ChildEnv
from agent_lsp.code_intel.catalog import ServerSpec, server_env
from agent_lsp.core.code_intel import CodeIntelError

if TYPE_CHECKING:
    from agent_lsp.code_intel.server import ManagedServer

log = logging.getLogger(__name__)
START_TIMEOUT_S = 30.0  # spawn + initialize; a cold type checker on a busy machine takes a few seconds
REQUEST_TIMEOUT_S = 15.0  # one request (references over a large tree are the slowest)
_Key = tuple[Path, str, str]


class ServerPool:
    def __init__(
        self,
        env: Mapping[str, str],
        *,
        start_timeout: float = START_TIMEOUT_S,
        request_timeout: float = REQUEST_TIMEOUT_S,
    ) -> None:
        self.env = dict(env)
        self.start_timeout = start_timeout
        self.request_timeout = request_timeout
        self._servers: dict[_Key, ManagedServer] = {}
        self._starts: dict[_Key, int] = {}
        self._given_up: dict[_Key, str] = {}
        self._failures: dict[_Key, str] = {}  # why the last start failed
        self._locks: dict[_Key, asyncio.Lock] = {}
        self._closed = False

    def running(self) -> list[ManagedServer]:
        return [s for s in self._servers.values() if s.initialized and s.alive]

    async def server(self, spec: ServerSpec, root: Path, child_env: ChildEnv | None = None) -> ManagedServer:
        """The live server for ``spec`` in ``root``, started (or restarted once) if need be, with the environment
        ``child_env`` allows (that of the session that starts it). Raises CodeIntelError."""
        key = (root, spec.language, spec.command)
        if self._closed:
            raise CodeIntelError("the language servers are shut down")
        # Only a server that has answered initialize is handed out: one still starting (its process alive, its
        # capabilities not in yet) is waited for on the lock its starter holds.
        current = self._servers.get(key)
        if current is not None and current.initialized and current.alive:
            return current
        async with self._locks.setdefault(key, asyncio.Lock()):
            current = self._servers.get(key)
            if current is not None and current.initialized and current.alive:
                return current
            if key in self._given_up:
                raise CodeIntelError(self._given_up[key])
            starts = self._starts.get(key, 0)
            if starts >= 2:
                last = self._failures.get(key) or (current.death() if current is not None else f"{spec.name} failed")
                why = f"{last}; it was restarted once already and is not started again in this process"
                self._given_up[key] = why
                raise CodeIntelError(why)
            if current is not None:
                log.warning("%s died (%s); starting it again", current.label, current.death())
                with contextlib.suppress(Exception):
                    await current.stop(1.0)
            self._starts[key] = starts + 1
            env = server_env(self.env, spec.env, child_env)
            # pygls and lsprotocol load with the first server: a session that never asks costs nothing for them.
            from agent_lsp.code_intel.server import ManagedServer

            fresh = ManagedServer(spec, root, env, request_timeout=self.request_timeout)
            self._servers[key] = fresh
            try:
                await fresh.start(self.start_timeout)
            except CodeIntelError as exc:
                self._failures[key] = str(exc)
                raise
            return fresh

    async def aclose(self) -> None:
        """Stop every server (each bounded; together they stop in parallel)."""
        self._closed = True
        servers = list(self._servers.values())
        self._servers.clear()
        await asyncio.gather(*(s.stop() for s in servers), return_exceptions=True)
