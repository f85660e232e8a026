"""The trust prompt: a folder nobody has decided about yet is offered to the user, as Gemini CLI's trust dialog is.

The answer is the user's own act (a project can fill an editor's settings, never answer its dialogs), so "Trust
folder" writes the rule to ~/.gemini/trustedFolders.json; nothing else over LSP can trust a folder
(docs/security.md).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from agent_lsp.adapters.lsp.client import ClientRequestError, LspClient
from agent_lsp.adapters.lsp.messages import MESSAGE_TYPE, show_message

log = logging.getLogger(__name__)

TRUST = "Trust folder"
NOT_NOW = "Not now"


def undecided(folder: Path, editor_trust: bool | None) -> bool:
    """True when no rule, switch or override has decided about ``folder`` (the only case worth asking)."""
    import os

    from agent_lsp.config.loader import read_folder_trust_enabled
    from agent_lsp.config.trust import decide_trust

    env = os.environ
    decision = decide_trust(
        folder, settings_folder_trust_enabled=read_folder_trust_enabled(env), env=env, editor_trust=editor_trust
    )
    return decision.source == "default"


async def offer_trust(client: LspClient, folder: Path, editor_trust: bool | None) -> bool:
    """Ask once whether to trust ``folder``; True when the user said so and the rule was written."""
    if not await asyncio.to_thread(undecided, folder, editor_trust):
        return False
    question = {
        "type": MESSAGE_TYPE["warning"],
        "message": (
            f"Agent: do you trust the files in {folder}? Until you do, the agent ignores its .gemini settings, .env "
            "and GEMINI.md, starts none of its MCP servers or hooks, and approves nothing on its own."
        ),
        "actions": [{"title": TRUST}, {"title": NOT_NOW}],
    }
    try:
        answer = await client.request("window/showMessageRequest", question)
    except ClientRequestError as exc:
        log.info("the trust question was not answered: %s", exc)
        return False
    if not isinstance(answer, dict) or answer.get("title") != TRUST:
        return False
    from agent_lsp.config.trust import TrustLevel, trust_folder
    from agent_lsp.errors import ConfigError

    try:
        written = await asyncio.to_thread(trust_folder, folder, TrustLevel.TRUST_FOLDER)
    except (ConfigError, OSError) as exc:
        client.notify("window/showMessage", show_message("error", f"Agent: could not trust {folder}: {exc}"))
        return False
    done = f"Agent: {folder} is trusted ({written}). New chats read its settings."
    client.notify("window/showMessage", show_message("info", done))
    return True
