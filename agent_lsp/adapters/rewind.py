"""The rewind request both servers answer (ACP's ``_agent-lsp/rewind``, LSP's ``agent/rewind``), as plain JSON,
and the copy a fork starts from (ACP's ``session/fork``, LSP's ``agent/fork``).

Parameters arrive already checked by the adapter; a ``RewindError`` (no such message, a compressed one, a
running prompt) is for the adapter to map to its error code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from agent_lsp import events as ev
    from agent_lsp.core.rewind import FilePlan
    from agent_lsp.core.session import Session
    from agent_lsp.model.base import Content
    from agent_lsp.runtime import SessionHandle


class BadRewindParams(ValueError):
    """A field of the request is wrong: ``field`` names it, the message says why."""

    def __init__(self, field: str, why: str) -> None:
        super().__init__(f"{field} {why}")
        self.field = field
        self.why = why


@dataclass(frozen=True)
class RewindParams:
    index: int | None
    dry_run: bool
    undo: bool
    revert_turn: bool = False  # only that message's turn's file changes; the conversation stays
    message_id: str | None = None  # the message by its id (``messageId``); the index is the fallback


def message_id_param(value: Any) -> str | None:
    """A request's optional ``messageId``, checked; BadRewindParams when it is not a non-empty string."""
    if value is not None and (not isinstance(value, str) or not value):
        raise BadRewindParams("messageId", "must be a user message's id (a non-empty string)")
    return value


def rewind_params(params: Mapping[str, Any]) -> RewindParams:
    """``{messageId? | messageIndex?, dryRun?, undo?, revertTurn?}`` checked; BadRewindParams names the field
    that is wrong. A message id wins over an index when both are given."""
    index = params.get("messageIndex")
    if index is not None and (not isinstance(index, int) or isinstance(index, bool) or index < 0):
        raise BadRewindParams("messageIndex", "must be a number from 0 (a user message's index)")
    message_id = message_id_param(params.get("messageId"))
    flags = {key: params.get(key, False) for key in ("dryRun", "undo", "revertTurn")}
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise BadRewindParams(key, "must be true or false")
    if flags["revertTurn"] and index is None and message_id is None:
        raise BadRewindParams("messageIndex", "(or messageId) is needed with revertTurn")
    return RewindParams(index, flags["dryRun"], flags["undo"], flags["revertTurn"], message_id)


async def rewind_answer(
    session: Session, params: RewindParams, announce: Callable[[ev.AgentEvent], None]
) -> dict[str, Any]:
    """Without an index: the session's user messages. With one: what rewinding to it would do (``dry_run``) or
    did; ``revert_turn``: only that message's turn's file changes undone. ``undo``: put back the last rewind.
    A rewind and an undo ``announce`` the context the next request will carry (``ContextUsage``)."""
    rewinds, index = session.rewinds, params.index
    if params.undo:
        undone = await rewinds.undo()
        announce(context_usage(session))
        return {"messageIndex": undone, "undone": True}
    if params.message_id is not None:
        index = rewinds.index_of(params.message_id)
    if index is None:
        messages = [
            {"index": t.index, "text": t.text, "rewindable": t.rewindable, **_id(t.message_id)}
            for t in rewinds.targets()
        ]
        return {"messages": messages, "canUndo": rewinds.can_undo}
    message_id = _id(rewinds.targets()[index].message_id) if 0 <= index < len(rewinds.targets()) else {}
    if params.revert_turn:
        return {"messageIndex": index, **message_id, "revertTurn": True, **_files(await rewinds.revert_turn(index))}
    if params.dry_run:
        plan = await rewinds.preview(index)
        text = rewinds.targets()[index].text
        return {"messageIndex": index, **message_id, "text": text, "dryRun": True, **_files(plan)}
    result = await rewinds.rewind(index)
    announce(context_usage(session))
    return {
        "messageIndex": index,
        **message_id,
        "text": result.text,
        "filesAvailable": result.files_available,
        "canUndo": True,
        **_files(result.files),
    }


def _id(message_id: str) -> dict[str, str]:
    return {"messageId": message_id} if message_id else {}


def _files(plan: FilePlan) -> dict[str, list[str]]:
    return {"restore": list(plan.restore), "delete": list(plan.delete), "conflicts": list(plan.conflicts)}


@dataclass(frozen=True)
class ForkPoint:
    """Fork from a message: the fork's conversation is the one before user message ``index`` (``text``)."""

    index: int
    text: str
    history: tuple[Content, ...]  # the source's history up to where that message began
    message_id: str = ""


def fork_index(value: Any) -> int | None:
    """A fork's optional ``messageIndex``, checked; BadRewindParams when it is not a message's index."""
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        raise BadRewindParams("messageIndex", "must be a number from 0 (a user message's index)")
    return value


def fork_point(session: Session, index: int | None, message_id: str | None = None) -> ForkPoint | None:
    """Where a fork from message ``message_id`` (or, failing that, ``index``) cuts the source's conversation (on
    the loop: it reads the live history); RewindError when there is no such message or it was before a
    compression."""
    if message_id is not None:
        index = session.messages.index_of(message_id)
    if index is None:
        return None
    mark = session.messages.mark(index)
    return ForkPoint(index, mark.text, session.history.contents()[: mark.history_index], mark.message_id)


def copy_for_fork(source: SessionHandle, new_id: str, cwd: Path, at: ForkPoint | None = None) -> None:
    """The source's recording under the new id (in the fork's project), and its checkpoints' after-records
    naming the new id, so the fork loads the same conversation and rewinds over the same changes. With ``at``
    the copy is cut before that message, as a rewind cuts a recording (the files are not touched). Blocking."""
    from agent_lsp.store.sessions import SessionStore

    if source.store is None:
        raise ValueError("This session is not recorded, so it cannot be forked.")
    into = SessionStore(cwd.resolve())
    source.store.fork(source.session.id, new_id, into)
    if source.checkpointer is not None:
        source.checkpointer.records.fork_afters(source.session.id, new_id)
    if at is not None:
        # The copy is whole before these two lines land: a crash between leaves a fork of the whole session.
        recorder = into.recorder(new_id, cwd)
        try:
            recorder.record_rewind(at.index)
            recorder.record_history(at.history)
        finally:
            recorder.close()


def context_usage(session: Session) -> ev.ContextUsage:
    """The context ``session``'s next request will carry (an estimate, core/context_usage.py)."""
    from agent_lsp.core.context_usage import context_usage as estimate

    return estimate(session.state, session.deps)


def fork_usage(source: Session, fork: Session) -> ev.ContextUsage:
    """What a fork starts with: its copied history's context, with the source's fixed part (system prompt, tools)
    the fork has not measured yet, against its model's window."""
    from agent_lsp.core.context_usage import fork_usage as estimate

    return estimate(source.state, fork.state, fork.deps)
