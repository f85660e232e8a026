"""The ACP agent: the table from each Agent Client Protocol v1 method to the part that answers it.

``access`` answers initialize/authenticate, ``lifecycle`` opens and closes sessions, ``turns`` runs prompts,
``configuration`` changes modes and models; they share the table of open sessions.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from agent_lsp.adapters.acp.access import Access, AgentOptions
from agent_lsp.adapters.acp.configuration import SessionConfiguration
from agent_lsp.adapters.acp.jsonrpc import Connection, RequestContext, RpcError
from agent_lsp.adapters.acp.live import SessionTable
from agent_lsp.adapters.acp.params import params_object
from agent_lsp.adapters.acp.rewinds import METHOD as REWIND
from agent_lsp.adapters.acp.rewinds import Rewinds
from agent_lsp.adapters.acp.sessions import SessionLifecycle
from agent_lsp.adapters.acp.steering import METHOD as STEER
from agent_lsp.adapters.acp.steering import Steering
from agent_lsp.adapters.acp.turns import PromptRuns

__all__ = ["METHODS", "AcpAgent"]

log = logging.getLogger(__name__)
Method = Callable[[dict[str, Any], RequestContext], Awaitable[Any]]


class AcpAgent:
    """Serves one connection (``Connection.serve(agent)``)."""

    def __init__(self, options: AgentOptions, conn: Connection) -> None:
        self.access = Access(options)
        self.sessions = SessionTable()
        self.configuration = SessionConfiguration(self.sessions)
        self.lifecycle = SessionLifecycle(conn, self.access, self.sessions, self.configuration)
        self.turns = PromptRuns(self.sessions, self.configuration)
        self.rewinds = Rewinds(self.sessions)
        self.steering = Steering(self.sessions, self.turns, self.access.tasks)

    def dispatch(self, method: str, params: Any, ctx: RequestContext) -> Awaitable[Any]:
        """Runs synchronously as each request arrives (so bookkeeping happens in arrival order)."""
        route = _ROUTES.get(method)
        if route is None:
            raise RpcError.of("method_not_found", f"Method not found: {method}")
        return route(self)(params_object(params), ctx)

    def notification(self, method: str, params: Any) -> None:
        if method == "session/cancel":
            self.turns.cancel(params)
        else:
            log.debug("ignoring notification %s", method)

    async def close_all(self) -> None:
        """End every open session (the connection is closing)."""
        await self.lifecycle.close_all()
        await self.access.close_servers()
        await self.access.tasks.aclose()  # whatever background work is left of this connection


_ROUTES: dict[str, Callable[[AcpAgent], Method]] = {
    "initialize": lambda a: a.access.initialize,
    "authenticate": lambda a: a.access.authenticate,
    "logout": lambda a: a.access.logout,
    "session/new": lambda a: a.lifecycle.new,
    "session/load": lambda a: a.lifecycle.load,
    "session/resume": lambda a: a.lifecycle.resume,
    "session/fork": lambda a: a.lifecycle.fork,
    "session/list": lambda a: a.lifecycle.list,
    "session/close": lambda a: a.lifecycle.close,
    "session/delete": lambda a: a.lifecycle.delete,
    "session/prompt": lambda a: a.turns.prompt,
    "session/set_mode": lambda a: a.configuration.set_mode,
    "session/set_config_option": lambda a: a.configuration.set_config_option,
    REWIND: lambda a: a.rewinds.rewind,
    STEER: lambda a: a.steering.steer,
}
METHODS: tuple[str, ...] = tuple(_ROUTES)
"""Every request method the agent answers (the fuzz test sends each one)."""
