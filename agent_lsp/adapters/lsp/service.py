"""The agent behind the LSP server, built once from its parts, each with one job.

``config`` (folders, settings, the runtime), ``fs`` (the editor's buffers and edits), ``sessions``
(agent/newSession … setModel), ``prompts`` (agent/prompt, progress, cancellation) and ``commands`` (code
actions, executeCommand). They speak plain JSON through an :class:`LspClient`; server.py routes messages to them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_lsp.adapters.launch import LaunchOptions
from agent_lsp.adapters.lsp.client import LspClient
from agent_lsp.adapters.lsp.client_fs import LspFileSystem
from agent_lsp.adapters.lsp.commands import EditorCommands
from agent_lsp.adapters.lsp.configuration import Configuration
from agent_lsp.adapters.lsp.documents import DocumentStore
from agent_lsp.adapters.lsp.prompts import Prompts
from agent_lsp.adapters.lsp.sessions import Sessions

__all__ = ["AgentService"]


class AgentService:
    def __init__(self, client: LspClient, options: LaunchOptions | None = None) -> None:
        self.client = client
        self.config = Configuration(client, options or LaunchOptions())
        self.fs = LspFileSystem(DocumentStore(), client)
        self.sessions = Sessions(client, self.config, self.fs)
        self.prompts = Prompts(client, self.sessions)
        self.commands = EditorCommands(client, self.sessions, self.prompts, self.fs)

    def initialize(self, params: Mapping[str, Any]) -> None:
        self.config.initialize(params)

    async def did_change_configuration(self, settings: Any) -> None:
        if await self.config.changed(settings):
            self.sessions.follow_settings()

    def did_change_workspace_folders(self, params: Mapping[str, Any]) -> None:
        self.sessions.follow_folders(*self.config.folders_changed(params))

    async def shutdown(self) -> None:
        self.commands.stop()
        await self.sessions.close_all()
        await self.config.close_servers()
        from agent_lsp.runtime.code_intel import close_language_servers

        await close_language_servers()  # the language servers sessions started end with the editor's connection
        await self.config.tasks.aclose()  # whatever background work is left of this connection
