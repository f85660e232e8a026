"""What the server announces in its ``initialize`` answer: plain dicts, importable before pygls is.

main.py answers ``initialize`` from here before the protocol library has loaded, so this module must stay
free of heavy imports (only the standard library and agent_lsp's version string).
"""

from __future__ import annotations

from typing import Any

from agent_lsp import __version__

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
)
NOTIFICATIONS = ("agent/cancel",)
PROTOCOL_VERSION = 1


def server_capabilities() -> dict[str, Any]:
    return {
        "positionEncoding": "utf-16",
        "textDocumentSync": {"openClose": True, "change": 2, "save": {"includeText": False}},
        "codeActionProvider": {"codeActionKinds": ["quickfix", "refactor.rewrite"], "resolveProvider": False},
        "executeCommandProvider": {"commands": list(COMMANDS)},
        "workspace": {"workspaceFolders": {"supported": True, "changeNotifications": True}},
        "experimental": {
            "agent": {
                "protocolVersion": PROTOCOL_VERSION,
                "requests": list(REQUESTS),
                "notifications": list(NOTIFICATIONS),
                "updates": "agent/update",
                "permissionRequests": "agent/requestPermission",
            }
        },
    }


def initialize_result() -> dict[str, Any]:
    return {"capabilities": server_capabilities(), "serverInfo": {"name": SERVER_NAME, "version": __version__}}
