"""The rewind request both servers answer (ACP's ``_agent-lsp/rewind``, LSP's ``agent/rewind``), as plain JSON.

Parameters arrive already checked by the adapter; a ``RewindError`` (no such message, a compressed one, a
running prompt) is for the adapter to map to its error code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_lsp.core.rewind import FilePlan
    from agent_lsp.core.session import Session


async def rewind_answer(session: Session, index: int | None, *, dry_run: bool, undo: bool) -> dict[str, Any]:
    """Without an index: the session's user messages. With one: what rewinding to it would do (``dry_run``) or
    did. ``undo``: put back the last rewind."""
    rewinds = session.rewinds
    if undo:
        return {"messageIndex": await rewinds.undo(), "undone": True}
    if index is None:
        messages = [{"index": t.index, "text": t.text, "rewindable": t.rewindable} for t in rewinds.targets()]
        return {"messages": messages, "canUndo": rewinds.can_undo}
    if dry_run:
        plan = await rewinds.preview(index)
        text = rewinds.targets()[index].text
        return {"messageIndex": index, "text": text, "dryRun": True, **_files(plan)}
    result = await rewinds.rewind(index)
    return {
        "messageIndex": index,
        "text": result.text,
        "filesAvailable": result.files_available,
        "canUndo": True,
        **_files(result.files),
    }


def _files(plan: FilePlan) -> dict[str, list[str]]:
    return {"restore": list(plan.restore), "delete": list(plan.delete), "conflicts": list(plan.conflicts)}
