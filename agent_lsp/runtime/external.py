"""Builder and owner of a session's outside tools: MCP servers and discovered tools, started in the background."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agent_lsp import events as ev

if TYPE_CHECKING:
    from agent_lsp.child_env import ChildEnv
    from agent_lsp.config.settings import McpServerSettings
    from agent_lsp.extensions.manifest import Manifest
    from agent_lsp.mcp.config import McpServerSpec
    from agent_lsp.mcp.elicitation import Elicitor
    from agent_lsp.mcp.manager import McpManager
    from agent_lsp.mcp.pool import McpPool
    from agent_lsp.tools.context import ToolContext
    from agent_lsp.tools.registry import ToolRegistry

Notify = Callable[[ev.Notice], None]
Spawn = Callable[..., "asyncio.Task[None]"]  # SessionHandle.spawn: (coroutine, *, name) → its tracked task


def mcp_server_specs(
    configured: Mapping[str, McpServerSettings],
    *,
    allowed: Sequence[str] | None,
    excluded: Sequence[str],
    trusted: bool,
    extensions: Sequence[Manifest],
    from_editor: Mapping[str, Mapping[str, Any]],
    notices: list[ev.Notice],
    inherit: ChildEnv | None = None,
) -> list[McpServerSpec]:
    """The servers to connect: settings' (allowed, not excluded), then trusted extensions', then the editor's."""
    from agent_lsp.mcp.config import McpServerSpec

    servers: dict[str, Mapping[str, Any]] = {}
    for name, cfg in configured.items():
        if (allowed is not None and name not in allowed) or name in excluded:
            continue
        servers[name] = cfg.model_dump(by_alias=True, exclude_none=True)
    if trusted:
        # An extension's servers start only in trusted folders; a settings server of the same name wins.
        for manifest in extensions:
            for name, raw in manifest.mcp_servers.items():
                if (allowed is not None and name not in allowed) or name in excluded:
                    continue
                servers.setdefault(name, {k: v for k, v in raw.items() if k != "trust"})
    elif any(m.mcp_servers for m in extensions):
        names = ", ".join(m.name for m in extensions if m.mcp_servers)
        notices.append(ev.Notice("warning", f"MCP servers of extensions ({names}) not started: folder not trusted"))
    servers.update(from_editor)  # what the editor passed is trusted as it is
    specs = []
    for name, raw in servers.items():
        try:
            spec = McpServerSpec.from_settings(name, dict(raw))
            specs.append(replace(spec, inherit=inherit) if inherit is not None else spec)
        except Exception as exc:
            notices.append(ev.Notice("error", f"MCP server '{name}' is misconfigured: {exc}"))
    return specs


class ExternalTools:
    """Tools from outside the process. Chosen at construction; ``start`` (once the event loop runs) connects
    them in the background so they never delay the session; their tools join the registry as they arrive."""

    def __init__(
        self,
        registry: ToolRegistry,
        ctx: ToolContext,
        specs: Sequence[McpServerSpec],
        discovery: tuple[str, str] | None = None,  # tools.discoveryCommand, tools.callCommand
        pool: McpPool | None = None,  # the runtime's shared MCP servers; None: this session's own
    ) -> None:
        self.registry, self.ctx, self.specs, self.discovery = registry, ctx, list(specs), discovery
        self.pool = pool
        self._mcp: McpManager | None = None
        self._discover: asyncio.Task[None] | None = None
        self._notify: Notify = lambda _notice: None

    @property
    def mcp(self) -> McpManager | None:
        return self._mcp

    def start(
        self,
        notify: Notify,
        spawn: Spawn,
        catalog_changed: Callable[[], None] | None = None,
        sampler: Callable[[str, Any], Awaitable[Any]] | None = None,
        open_url: Callable[[str], Awaitable[None]] | None = None,
        elicitor: Elicitor | None = None,
    ) -> None:
        """Begin connecting; failures (now or later) are told through ``notify``, changed prompts or resources
        through ``catalog_changed``; servers' forms go to ``elicitor``; background work starts through ``spawn`` (the
        session's, tracked by the connection's supervisor). Needs a running event loop."""
        self._notify = notify
        if self.specs:
            from agent_lsp.mcp.manager import McpManager
            from agent_lsp.mcp.oauth import signer
            from agent_lsp.mcp.oauth_callback import open_in_browser

            roots = self.ctx.workspace
            self._mcp = McpManager(
                self.registry,
                self.specs,
                on_notice=notify,
                on_catalog_changed=catalog_changed,
                roots=lambda: roots.roots,
                sampler=sampler,
                # The front end's way to open the sign-in page, else the user's browser; the address is a notice too.
                sign_in=signer(lambda text: notify(ev.Notice("info", text)), open_url or open_in_browser),
                elicitor=elicitor,
                pool=self.pool,
            )
            self._mcp.start()
        if self.discovery is not None:
            self._discover = spawn(self._discover_tools(*self.discovery), name="tool-discovery")

    async def wait_for_servers(self) -> None:
        """The first prompt waits for MCP servers still connecting (as Gemini CLI waits for discovery), saying so."""
        mcp = self._mcp
        if mcp is None:
            return
        starting = [name for name, state in mcp.status().items() if state == "connecting"]
        if not starting:
            return
        self._notify(ev.Notice("info", f"Waiting for MCP server(s) to start: {', '.join(starting)}"))
        await mcp.wait_ready()
        ready = [name for name in starting if mcp.status().get(name) == "connected"]
        if ready:
            tools = sum(len(mcp.tool_names(name)) for name in ready)
            self._notify(ev.Notice("info", f"MCP server(s) ready: {', '.join(ready)} ({tools} tool(s))"))

    async def describe_mcp(self, args: str) -> str:
        """/mcp: each server's state, tools, prompts and resources; ``refresh [server]`` restarts them first,
        ``auth <server>`` signs in to it (OAuth) and reconnects it."""
        from agent_lsp.mcp.describe import describe_servers

        mcp = self._mcp
        if mcp is None:
            return "MCP servers have not started yet."
        words = args.split()
        if words and words[0] == "auth" and len(words) <= 2:
            from agent_lsp.mcp.auth_command import mcp_auth

            return await mcp_auth(mcp, " ".join(words[1:]))
        if words and words[0] == "refresh" and len(words) <= 2:
            unknown = await mcp.restart(words[1:])
            if unknown:
                return f"No MCP server is named {', '.join(unknown)}.\n\n" + describe_servers(mcp)
        elif words:
            return "Usage: `/mcp`, `/mcp refresh [server]` or `/mcp auth [server]`"
        return describe_servers(mcp)

    async def aclose(self) -> None:
        if self._discover is not None:
            self._discover.cancel()
        if self._mcp is not None:
            await self._mcp.aclose()

    async def _discover_tools(self, discovery_command: str, call_command: str) -> None:
        from agent_lsp.tools.discovered import DiscoveryError, discover_tools

        try:
            tools = await discover_tools(self.ctx, discovery_command, call_command)
        except DiscoveryError as exc:
            # Keep what was well formed; say what was not.
            tools = list(exc.tools)
            self._notify(ev.Notice("error", "Tool discovery: " + "; ".join(exc.problems)))
        for tool in tools:
            try:
                self.registry.register(tool)
            except ValueError as exc:
                self._notify(ev.Notice("warning", f"Discovered tool skipped: {exc}"))
