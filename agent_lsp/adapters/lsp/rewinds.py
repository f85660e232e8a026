"""``agent/rewind``: go back to before one of a session's user messages (docs/protocol.md#agentrewind)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_lsp.adapters.live import BUSY
from agent_lsp.adapters.lsp.params import RequestError
from agent_lsp.adapters.lsp.sessions import Sessions
from agent_lsp.adapters.rewind import BadRewindParams, rewind_answer, rewind_params


async def rewind(sessions: Sessions, params: Mapping[str, Any]) -> dict[str, Any]:
    """List the messages, preview (``dryRun``), rewind to ``messageIndex``, or ``undo`` the last rewind."""
    from agent_lsp.core.rewind import RewindError

    live = sessions.live(params)
    try:
        checked = rewind_params(params)
    except BadRewindParams as exc:
        raise RequestError("invalid_params", str(exc)) from exc
    if not live.claim():  # the prompt gate: no prompt starts while files and history are put back
        raise RequestError("busy", BUSY)
    try:
        handle = await live.handle()
        return await rewind_answer(handle.session, checked)
    except RewindError as exc:
        raise RequestError(exc.meaning, str(exc)) from exc
    finally:
        live.release()
