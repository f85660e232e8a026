"""What the server announces beyond what pygls derives from its registered features: names and the
``experimental.agent`` capability (plain data, no protocol library)."""

from __future__ import annotations

from typing import Any

SERVER_NAME = "agent-lsp"

CMD_FIX = "agent.fix"
CMD_EXPLAIN = "agent.explain"
CMD_EDIT_SELECTION = "agent.editSelection"
CMD_PROMPT = "agent.prompt"
CMD_CANCEL = "agent.cancel"
COMMANDS = (CMD_FIX, CMD_EXPLAIN, CMD_EDIT_SELECTION, CMD_PROMPT, CMD_CANCEL)

REQUESTS = (
    "agent/newSession",
    "agent/prompt",
    "agent/loadSession",
    "agent/listSessions",
    "agent/setMode",
    "agent/setModel",
    "agent/findFiles",
    "agent/rewind",
    "agent/fork",
    "agent/mcpServers",
    "agent/mcpRestart",
    "agent/steer",
)
NOTIFICATIONS = ("agent/cancel",)
PROTOCOL_VERSION = 1


CODE_ACTION_KINDS = ("quickfix", "refactor.rewrite")


def experimental() -> dict[str, Any]:
    """What our own clients read from ``capabilities.experimental``: the agent protocol this server speaks."""
    return {
        "agent": {
            "protocolVersion": PROTOCOL_VERSION,
            "requests": list(REQUESTS),
            "notifications": list(NOTIFICATIONS),
            "updates": "agent/update",
            "permissionRequests": "agent/requestPermission",
            "elicitation": "agent/elicit",  # asked of clients that advertise experimental.agent.elicitation
        }
    }
