"""Steering, as both front ends answer it (ACP's ``_session/steering``, LSP's ``agent/steer``): the message joins
the running turn, or, with none running, the client is told to send it as a prompt or a turn is started with it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from agent_lsp.adapters.live import LiveSession
    from agent_lsp.core.session import Session
    from agent_lsp.model.base import Part
    from agent_lsp.supervisor import TaskSupervisor

log = logging.getLogger(__name__)
IdleBehavior = Literal["promptRequired", "startNewTurn"]
IDLE_BEHAVIORS: tuple[IdleBehavior, ...] = ("promptRequired", "startNewTurn")
# A prompt that has claimed the session but whose turn has not begun yet (its tools still loading) will take the
# message in once it does: how long a steer waits for that, in steps of STARTING_STEP_S.
STARTING_STEP_S = 0.01
STARTING_STEPS = 1000


class BadSteerParams(ValueError):
    """``field`` is wrong; the message says why."""

    def __init__(self, field: str, why: str) -> None:
        super().__init__(f"{field} {why}")
        self.field = field
        self.why = why


def idle_behavior(params: Mapping[str, Any]) -> IdleBehavior:
    """What to do when no turn runs: ``idleBehavior`` (ours and the draft's), or ``_meta.steering.idleBehavior``
    (claude-agent-acp's opt-in); a new turn when neither says."""
    value = params.get("idleBehavior")
    field = "idleBehavior"
    if value is None:
        meta = params.get("_meta")
        steering = meta.get("steering") if isinstance(meta, Mapping) else None
        value = steering.get("idleBehavior") if isinstance(steering, Mapping) else None
        field = "_meta.steering.idleBehavior"
    if value is None:
        return "startNewTurn"
    if value not in IDLE_BEHAVIORS:
        raise BadSteerParams(field, "must be promptRequired or startNewTurn")
    behavior: IdleBehavior = value
    return behavior


async def steer_running(
    live: LiveSession, session: Session, prompt: str | Sequence[Part], attachments: Sequence[Part]
) -> str | None:
    """Put the message into the running turn: its message id, or None when no turn is running or about to."""
    for _ in range(STARTING_STEPS):
        message_id = session.steer(prompt, attachments=attachments)
        if message_id is not None:
            return message_id
        if not live.prompting:
            return None
        await asyncio.sleep(STARTING_STEP_S)  # claimed, starting (or just ending): its turn decides soon
    return None


def injected(message_id: str) -> dict[str, Any]:
    """The answer for a message that joined the running turn (its id, for rewinding to it later)."""
    return {"outcome": "injected", "_meta": {"agent-lsp": {"messageId": message_id}}}


PROMPT_REQUIRED: dict[str, Any] = {"outcome": "promptRequired", "reason": "noRunningTurn"}
STARTED: dict[str, Any] = {"outcome": "startedNewTurn"}


def start_turn(tasks: TaskSupervisor, turn: Awaitable[Any], session_id: str) -> dict[str, Any]:
    """Run the turn a steered message started for an idle session as the connection's background work: nobody
    awaits its answer (the editor sees its updates), so a failure is logged. Answers ``startedNewTurn``."""

    async def started() -> None:
        try:
            await turn
        except Exception as exc:
            log.warning("the turn a steered message started failed: %s", exc)

    tasks.spawn(started(), name=f"steered-turn:{session_id}")
    return STARTED
