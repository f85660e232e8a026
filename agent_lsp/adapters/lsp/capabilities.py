"""What the server announces beyond what pygls derives from its registered features: names and the
``experimental.agent`` capability (plain data, no protocol library)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

SERVER_NAME = "agent-lsp"

CMD_FIX = "agent.fix"
CMD_EXPLAIN = "agent.explain"
CMD_EDIT_SELECTION = "agent.editSelection"
CMD_PROMPT = "agent.prompt"
CMD_CANCEL = "agent.cancel"
COMMANDS = (CMD_FIX, CMD_EXPLAIN, CMD_EDIT_SELECTION, CMD_PROMPT, CMD_CANCEL)

PROTOCOL_VERSION = 1


CODE_ACTION_KINDS = ("quickfix", "refactor.rewrite")


def experimental(requests: Iterable[str], notifications: Iterable[str]) -> dict[str, Any]:
    """What our own clients read from ``capabilities.experimental``: the agent protocol this server speaks.

    ``requests`` and ``notifications`` are the ``agent/*`` methods the server registered handlers for
    (server.py passes its handler table), so the list cannot drift from what is served."""
    return {
        "agent": {
            "protocolVersion": PROTOCOL_VERSION,
            "requests": list(requests),
            "notifications": list(notifications),
            "updates": "agent/update",
            "permissionRequests": "agent/requestPermission",
            "elicitation": "agent/elicit",  # asked of clients that advertise experimental.agent.elicitation
        }
    }
