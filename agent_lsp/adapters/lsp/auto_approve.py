"""``agent/autoApprove``: the session's auto-approve switches, read or changed (docs/protocol.md#agentautoapprove)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_lsp.adapters.auto_approve import BadAutoApprove, auto_approve_state, change, change_params
from agent_lsp.adapters.lsp.params import RequestError
from agent_lsp.adapters.lsp.sessions import Sessions


async def auto_approve(sessions: Sessions, params: Mapping[str, Any]) -> dict[str, Any]:
    """The state; with ``kind`` and ``scope`` (off, session, workspace) changed first. Refused in an untrusted
    folder with the reason, which the state also carries so an editor can show the switches disabled."""
    live = sessions.live(params)
    try:
        wanted = change_params(params)
    except BadAutoApprove as exc:
        raise RequestError("invalid_params", str(exc)) from exc
    handle = await live.handle()
    if wanted is not None:
        others = [o.ready for o in sessions.open.values() if o is not live]
        try:
            refused = await change(handle, *wanted, [o for o in others if o is not None])
        except OSError as exc:
            raise RequestError("internal", f"could not save the workspace's auto-approve switches: {exc}") from exc
        if refused:
            raise RequestError("invalid_request", refused)
    return auto_approve_state(handle)
