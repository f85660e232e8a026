"""The editor as the agent's parts see it: raw JSON requests and notifications, and capability look-ups.

server.py implements :class:`LspClient` over pygls; everything else speaks plain dicts through it, so the
agent-facing code does not depend on the protocol library's types.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class ClientRequestError(Exception):
    """The editor answered a request with an error (or the connection is gone)."""


class LspClient(Protocol):
    @property
    def capabilities(self) -> Mapping[str, Any]:
        """The client's ``initialize`` capabilities, as JSON."""
        ...

    def notify(self, method: str, params: Any) -> None: ...

    def notify_text(self, method: str, params: Any) -> None:
        """Streamed text that may be merged with the next within a frame; written before any other frame."""
        ...

    def flush(self) -> None:
        """Write any held text now."""
        ...

    async def request(self, method: str, params: Any) -> Any:
        """Send a request and wait for its result; cancelling the wait sends ``$/cancelRequest``.
        Raises ClientRequestError when the client answers with an error."""
        ...


def capability(caps: Mapping[str, Any], dotted: str) -> Any:
    """The value at a dotted path of the capabilities (None where any step is missing)."""
    value: Any = caps
    for key in dotted.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def wants_permission_requests(caps: Mapping[str, Any]) -> bool:
    """The client advertised ``experimental.agent.permissionRequests``: it answers agent/requestPermission."""
    experimental = caps.get("experimental")
    if not isinstance(experimental, Mapping):
        return False
    return bool(capability(experimental, "agent.permissionRequests") or experimental.get("agent.permissionRequests"))


def knows_agent_protocol(caps: Mapping[str, Any]) -> bool:
    """The client advertised anything under ``experimental.agent``: it shows agent/update itself."""
    experimental = caps.get("experimental")
    return isinstance(experimental, Mapping) and ("agent" in experimental or "agent.permissionRequests" in experimental)


def uses_document_changes(caps: Mapping[str, Any]) -> bool:
    # Resource operations exist only inside documentChanges, so a client listing them handles the form
    # even when it does not set the flag (Neovim).
    return bool(
        capability(caps, "workspace.workspaceEdit.documentChanges")
        or capability(caps, "workspace.workspaceEdit.resourceOperations")
    )


def can_create_files(caps: Mapping[str, Any]) -> bool:
    ops = capability(caps, "workspace.workspaceEdit.resourceOperations") or []
    return "create" in ops


def supports_annotations(caps: Mapping[str, Any]) -> bool:
    return capability(caps, "workspace.workspaceEdit.changeAnnotationSupport") is not None
