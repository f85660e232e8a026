"""What the agent sends the editor about one session: its ``session/update``s, its notices, its terminals.

A ``SessionChannel`` is made before the session itself, so the runtime can be given its notice sink and the
editor-terminal shell tool at construction; the ``LiveSession`` made afterwards shares it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import replace

from agent_lsp import events as ev
from agent_lsp.adapters.acp.jsonrpc import Connection
from agent_lsp.adapters.live import replay, send_event
from agent_lsp.adapters.updates import Update, UpdateState

log = logging.getLogger(__name__)
ATTACH_WAIT_S = 5.0


class SessionChannel:
    """Updates for one session id. Notices wait until the session's answer is out (``open``): a client can do
    nothing with an update about a session it has not been told of. A client without ``session.notices`` draws
    updates only while a prompt runs (CodeCompanion drops the others), so for it they wait for the next prompt."""

    def __init__(
        self, conn: Connection, session_id: str, *, notices: bool, compaction: bool = False, subagents: bool = False
    ) -> None:
        self.conn = conn
        self.id = session_id
        self.state = UpdateState(
            notices_supported=notices, compaction_supported=compaction, subagents_supported=subagents
        )
        self.closed = False
        self._open = False
        self._held: list[ev.Notice] = []
        self._terminals: dict[str, str] = {}  # tool call id → the editor terminal shown in it
        self._announced_calls: dict[str, asyncio.Event] = {}  # tool call id → its tool_call went out

    def set_context_size(self, tokens: int) -> None:
        """The model's context window (usage updates report against it): known once the session exists, and
        again after a model switch."""
        self.state = replace(self.state, context_size=tokens)

    def open(self, start_up: Iterable[ev.Notice]) -> None:
        """The session's answer went out: from now on notices may reach the client (start-up ones first)."""
        self._open = True
        held, self._held = self._held, []
        for notice in [*start_up, *held]:
            self.notice(notice)

    def close(self) -> None:
        """The session was closed: nothing more is sent about it."""
        self.closed = True

    def notice(self, notice: ev.Notice) -> None:
        """A notice from outside any prompt (the session's notice sink)."""
        if self._open and self.state.notices_supported:
            self.send_event(notice)
        else:
            self._held.append(notice)

    def send_held(self) -> None:
        """At the start of a prompt's stream: the notices a client without ``session.notices`` could not see."""
        held, self._held = self._held, []
        for notice in held:
            self.send_event(notice)

    def send_event(self, event: ev.AgentEvent) -> None:
        self.state = send_event(event, self.state, self)

    async def replay(self, events: Iterable[ev.AgentEvent]) -> None:
        """A loaded session's recorded events, drawn as they were sent live (at the pace the client reads)."""
        await replay(events, self.state, self)

    # ---- the session's wire (adapters/live.UpdateWire) ----

    def update(self, update: Update) -> None:
        self.send_update(update)

    def text(self, update: Update) -> None:
        if not self.closed:
            self.conn.notify_text("session/update", {"sessionId": self.id, "update": update})

    async def drain(self) -> None:
        await self.conn.drain()

    def send_update(self, update: Update) -> None:
        if self.closed:
            return
        call_id = update.get("toolCallId")
        if isinstance(call_id, str):
            terminal = self._terminals.get(call_id)
            if terminal is not None and update.get("sessionUpdate") == "tool_call_update" and "content" in update:
                shown = [{"type": "terminal", "terminalId": terminal}]
                if update.get("status") != "completed":
                    shown += [c for c in update["content"] if c.get("type") != "terminal"]
                update = {**update, "content": shown}
        self.conn.notify("session/update", {"sessionId": _addressee(update, self.id), "update": update})
        if update.get("sessionUpdate") == "tool_call" and isinstance(call_id, str):
            self._announced_calls.setdefault(call_id, asyncio.Event()).set()

    async def attach_terminal(self, call_id: str, terminal_id: str) -> None:
        """Show the editor's terminal in the tool call, strictly after the tool call itself went out."""
        sent = self._announced_calls.setdefault(call_id, asyncio.Event())
        try:
            await asyncio.wait_for(sent.wait(), ATTACH_WAIT_S)
        except TimeoutError:
            log.warning("tool call %s was never announced; attaching its terminal anyway", call_id)
        self._terminals[call_id] = terminal_id
        self.send_update(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": call_id,
                "status": "in_progress",
                "content": [{"type": "terminal", "terminalId": terminal_id}],
            }
        )


def _addressee(update: Update, session_id: str) -> str:
    """The session an update is about: a subagent's (announced on the parent by ``subagent_update``) goes under its
    child session's id, as ACP's subagent sessions have it; every other one under this session's."""
    meta = update.get("_meta")
    if meta is None or update.get("sessionUpdate") == "subagent_update":
        return session_id
    subagent = meta.get("agent-lsp", {}).get("subagent")
    return subagent["childSessionId"] if isinstance(subagent, dict) else session_id
