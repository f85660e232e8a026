"""``agent/rewind``: go back to before one of a session's user messages; ``agent/fork``: a copy of a session
(docs/protocol.md#agentrewind)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_lsp.adapters.live import BUSY
from agent_lsp.adapters.lsp.params import RequestError, opt_str
from agent_lsp.adapters.lsp.sessions import Sessions
from agent_lsp.adapters.rewind import (
    BadRewindParams,
    copy_for_fork,
    fork_index,
    fork_point,
    fork_usage,
    message_id_param,
    rewind_answer,
    rewind_params,
)


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
        return await rewind_answer(handle.session, checked, lambda event: sessions.announce(live, event))
    except RewindError as exc:
        raise RequestError(exc.meaning, str(exc)) from exc
    finally:
        live.release()


async def fork(sessions: Sessions, params: Mapping[str, Any]) -> dict[str, Any]:
    """A new session with the source's conversation, mode, model and checkpoints, opened as a loaded one (its
    conversation is replayed as ``agent/update``s, so the editor can draw the fork). With ``messageId`` (or
    ``messageIndex``) the fork's conversation is the one before that user message, whose text the answer carries
    (``messageText``)."""
    from agent_lsp.core.rewind import RewindError

    source = await sessions.live(params).handle()
    try:
        at = fork_point(
            source.session, fork_index(params.get("messageIndex")), message_id_param(params.get("messageId"))
        )
    except BadRewindParams as exc:
        raise RequestError("invalid_params", str(exc)) from exc
    except RewindError as exc:
        raise RequestError(exc.meaning, str(exc)) from exc
    new_id = sessions.config.runtime().new_session_id()
    raw_cwd = opt_str(params, "cwd")
    cwd = Path(raw_cwd) if raw_cwd else sessions.config.default_cwd()
    try:
        await asyncio.to_thread(copy_for_fork, source, new_id, cwd, at)
    except ValueError as exc:
        raise RequestError("invalid_request", str(exc)) from exc
    mode, model = source.session.policy.mode, source.session.model
    answer = await sessions.load_session({**params, "sessionId": new_id, "approvalMode": mode, "model": model})
    fork = sessions.open[new_id]
    sessions.announce(fork, fork_usage(source.session, (await fork.handle()).session))  # after its replay
    if at is None:
        return answer
    return {
        **answer,
        "messageIndex": at.index,
        "messageText": at.text,
        **({"messageId": at.message_id} if at.message_id else {}),
    }
