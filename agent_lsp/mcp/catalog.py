"""Requests about what a connected server offers besides tools: its prompts rendered, its resources read, and
the news that the client's roots changed."""

from __future__ import annotations

import logging
import warnings
from typing import Any, Protocol

from agent_lsp.errors import ToolError
from agent_lsp.mcp.connection import failure_reason

logger = logging.getLogger(__name__)


class ServerSessions(Protocol):
    """The manager, as these requests need it."""

    def live_session(self, server: str) -> Any: ...


async def get_prompt(manager: ServerSessions, server: str, name: str, args: dict[str, str]) -> Any:
    """The server's GetPromptResult for prompt ``name``; ToolError (a message for the user) otherwise."""
    session = manager.live_session(server)
    from mcp import MCPError

    try:
        return await session.get_prompt(name, args)
    except MCPError as exc:
        raise ToolError(f"MCP server '{server}' refused prompt '{name}': {exc.message}", "mcp_error") from None
    except Exception as exc:
        raise ToolError(f"MCP prompt '{name}' of '{server}' failed: {failure_reason(exc)}", "mcp_error") from exc


async def read_resource(manager: ServerSessions, server: str, uri: str) -> Any:
    """The server's ReadResourceResult for ``uri``; ToolError (a message for the user) otherwise."""
    session = manager.live_session(server)
    from mcp import MCPError

    try:
        return await session.read_resource(uri)
    except MCPError as exc:
        raise ToolError(f"MCP server '{server}' could not read {uri}: {exc.message}", "mcp_error") from None
    except Exception as exc:
        raise ToolError(f"reading {uri} from '{server}' failed: {failure_reason(exc)}", "mcp_error") from exc


async def tell_roots_changed(name: str, session: Any) -> None:
    """``notifications/roots/list_changed`` to one server; a server that is gone is not an error."""
    from mcp.shared.exceptions import MCPDeprecationWarning

    try:
        with warnings.catch_warnings():
            # The newest spec revision deprecates roots; servers on the revisions before it still use them.
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await session.send_roots_list_changed()
    except Exception:
        logger.debug("MCP server %r was not told its roots changed", name, exc_info=True)
