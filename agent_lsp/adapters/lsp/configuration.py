"""What the editor configures: workspace roots, ``agentLsp`` settings, and the runtime built from them.

The runtime (and with it the model SDK, tools and settings) is imported when it is first needed (the first
session, or the credentials check after ``initialized``), not before.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_lsp.adapters.launch import LaunchOptions
from agent_lsp.adapters.lsp import client as caps
from agent_lsp.adapters.lsp.client import ClientRequestError, LspClient
from agent_lsp.adapters.lsp.config import LspConfig, merge, parse_config
from agent_lsp.adapters.lsp.documents import canonical, uri_to_path
from agent_lsp.adapters.lsp.messages import show_message
from agent_lsp.supervisor import TaskSupervisor

if TYPE_CHECKING:
    from agent_lsp.runtime import Runtime

log = logging.getLogger(__name__)


class Configuration:
    """The editor's folders and settings; ``runtime()`` builds the Runtime once from them."""

    def __init__(self, client: LspClient, options: LaunchOptions) -> None:
        self.client = client
        self.options = options
        self.config = LspConfig()
        self.roots: list[Path] = []
        self._runtime: Runtime | None = None
        self.tasks = TaskSupervisor("lsp")  # this connection's background tasks (every Runtime it builds shares it)
        self._runtime_lock = threading.Lock()

    def initialize(self, params: Mapping[str, Any]) -> None:
        for folder in params.get("workspaceFolders") or []:
            path = folder_path(folder)
            if path is not None:
                self.roots.append(path)
        if not self.roots:
            root = params.get("rootUri")
            path = uri_to_path(root) if isinstance(root, str) else None
            if path is None and isinstance(params.get("rootPath"), str):
                path = Path(params["rootPath"])
            if path is not None:
                self.roots.append(path)
        self.apply(params.get("initializationOptions"))

    async def check_auth(self) -> None:
        """Say at once when no model can be used, rather than at the first prompt."""
        # For the first folder, as a session opened there decides (its trusted .env may hold the key).
        cwd, trust = self.default_cwd(), self.config.trust
        problem = await asyncio.to_thread(lambda: self.runtime().check_auth(cwd, editor_trust=trust))
        if problem:
            self.client.notify("window/showMessage", show_message("error", f"Agent: {problem}"))
        if self.roots:  # a folder nobody decided about yet: ask, as Gemini CLI's trust dialog does
            from agent_lsp.adapters.lsp.trust_prompt import offer_trust

            await offer_trust(self.client, cwd, trust)

    def default_cwd(self) -> Path:
        return self.roots[0] if self.roots else Path(os.getcwd())

    def folders_changed(self, params: Mapping[str, Any]) -> tuple[list[Path], list[Path]]:
        """Update the roots from ``workspace/didChangeWorkspaceFolders``; returns (added, removed)."""
        event = params.get("event") or {}
        removed = [p for p in (folder_path(f) for f in event.get("removed") or []) if p is not None]
        added = [p for p in (folder_path(f) for f in event.get("added") or []) if p is not None]
        gone = {canonical(p) for p in removed}
        self.roots = [r for r in self.roots if canonical(r) not in gone]
        self.roots.extend(p for p in added if canonical(p) not in {canonical(r) for r in self.roots})
        return added, removed

    async def changed(self, settings: Any) -> bool:
        """``workspace/didChangeConfiguration``: empty settings mean "ask me" (``workspace/configuration``).
        False when the settings could not be had."""
        if not settings and caps.capability(self.client.capabilities, "workspace.configuration"):
            try:
                answer = await self.client.request("workspace/configuration", {"items": [{"section": "agentLsp"}]})
            except ClientRequestError as exc:
                log.warning("workspace/configuration failed: %s", exc)
                return False
            # null is a valid answer (the client has no such section): nothing to apply.
            settings = {"agentLsp": answer[0]} if isinstance(answer, list) and answer and answer[0] else None
        self.apply(settings)
        return True

    def apply(self, raw: Any) -> None:
        if raw is None:
            return
        update = parse_config(raw)
        self.config = merge(self.config, update)
        for problem in update.problems:
            self.client.notify("window/showMessage", show_message("warning", f"Settings: {problem}"))

    async def close_servers(self) -> None:
        """Stop the MCP servers the sessions left leased (each session's close releases its own)."""
        if self._runtime is not None:
            await self._runtime.aclose()

    def runtime(self) -> Runtime:
        # Under a lock: the credentials check after ``initialized`` builds it on a worker thread while the first
        # agent/newSession, right behind, asks for it on the event loop; both must get the same one.
        with self._runtime_lock:
            if self._runtime is None:
                from agent_lsp.runtime import Runtime, RuntimeOptions, replay_delay

                # Checkpoints by default in editors; each session's setup carries the editor's own setting.
                self._runtime = Runtime(
                    RuntimeOptions(
                        fake_responses=self.options.fake_responses,
                        model=self.options.model,
                        approval_mode=self.options.approval_mode,
                        checkpointing=True,
                        chunk_delay=replay_delay(os.environ),
                    ),
                    tasks=self.tasks,
                )
            return self._runtime


def folder_path(folder: Any) -> Path | None:
    uri = folder.get("uri") if isinstance(folder, Mapping) else None
    return uri_to_path(uri) if isinstance(uri, str) else None
