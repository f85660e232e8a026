"""Prompt runs over LSP: agent/prompt with ``$/progress``, one prompt per session at a time, and cancellation.

A prompt is cancelled by ``agent/cancel``, ``$/cancelRequest`` for its request or the cancel button of its
progress; every way ends the turn properly, answering ``{"stopReason": "cancelled"}``.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from agent_lsp import events as ev
from agent_lsp.adapters.live import BUSY, PromptInput, Refused, send_event
from agent_lsp.adapters.lsp import client as caps
from agent_lsp.adapters.lsp import progress
from agent_lsp.adapters.lsp.client import ClientRequestError, LspClient
from agent_lsp.adapters.lsp.context import check_context, prompt_input
from agent_lsp.adapters.lsp.messages import notice_message, show_message
from agent_lsp.adapters.lsp.params import RequestError
from agent_lsp.adapters.lsp.sessions import LspSession, LspWire, Sessions

if TYPE_CHECKING:
    from agent_lsp.model.base import Part
    from agent_lsp.runtime import SessionHandle

log = logging.getLogger(__name__)
REPLY_LIMIT = 4000  # characters of the agent's answer shown by window/showMessage to plain clients


class Prompts:
    def __init__(self, client: LspClient, sessions: Sessions) -> None:
        self.client = client
        self.sessions = sessions

    async def prompt(self, params: Mapping[str, Any], request_id: Any = None, summary: str = "") -> dict[str, Any]:
        """Run one turn. ``summary``: what it is about in words, for progress (else the prompt's first line)."""
        live = self.sessions.live(params)
        given, context = params.get("prompt", ""), params.get("context")
        try:
            check_context(context)  # said before the session is claimed; the blocks are read once it is
        except ValueError as exc:
            raise RequestError("invalid_params", f"bad prompt: {exc}") from exc
        token = params.get("workDoneToken")
        if token is not None and (not isinstance(token, int | str) or isinstance(token, bool)):
            raise RequestError("invalid_params", "workDoneToken must be an integer or a string")
        if not live.claim():  # before the first await: no second prompt slips in
            # The same answer (code and words) as ACP's session/prompt: the first prompt keeps running untouched.
            raise RequestError("busy", BUSY)
        live.request_id = request_id
        try:
            return await self._run(
                live, partial(prompt_input, given, context, self.sessions.fs.read_text), token, summary
            )
        except Refused as exc:
            raise RequestError(exc.meaning, str(exc)) from exc
        except ValueError as exc:  # a bad content block (adapters/content.BlockError)
            raise RequestError("invalid_params", f"bad prompt: {exc}") from exc
        finally:
            live.request_id = live.token = None

    async def _run(
        self, live: LspSession, read: Callable[[], Awaitable[PromptInput]], token: Any, summary: str
    ) -> dict[str, Any]:
        typed: list[str | list[Part]] = []

        async def read_prompt() -> PromptInput:
            given = await read()
            typed.append(given[0])
            return given

        wire = LspWire(self.client, live.id)
        tracker = progress.ProgressTracker()
        reply: list[str] = []
        begun = False

        async def prepare(handle: SessionHandle) -> None:
            nonlocal begun
            self.sessions.current = live.id
            live.token = token
            if token is None and caps.capability(self.client.capabilities, "window.workDoneProgress"):
                live.token = await self._create_progress()
            if live.token is not None:
                prompt = typed[0]
                text = prompt if isinstance(prompt, str) else " ".join(p.text for p in prompt if p.text)
                about = summary or text
                begin = progress.progress_begin(progress.progress_title(about), progress.progress_summary(about))
                self._progress(live.token, begin)
                begun = True

        async def deliver(event: ev.AgentEvent) -> None:
            live.state = send_event(event, live.state, wire)
            message = tracker.message(event)
            if message and live.token is not None:
                self._progress(live.token, progress.progress_report(message))
            if isinstance(event, ev.Content):
                reply.append(event.text)
            elif isinstance(event, ev.Error):
                self.client.notify("window/showMessage", show_message("error", f"Agent: {event.message}"))
            elif isinstance(event, ev.Notice) and event.level != "info":
                self.client.notify("window/showMessage", notice_message(event))
            await wire.drain()

        def commands_changed(handle: SessionHandle) -> None:
            update = {"sessionUpdate": "available_commands_update", "availableCommands": self.sessions.commands(live)}
            wire.update(update)

        stop: str = "cancelled"
        try:
            end = await live.run_prompt(read_prompt, deliver, prepare=prepare, commands_changed=commands_changed)
            stop = end.stop
        finally:
            if begun:
                self._progress(live.token, progress.progress_end(stop, "".join(reply)))
            self.client.flush()  # all the text before the prompt's answer
        answer = "".join(reply).strip()
        if answer and not caps.knows_agent_protocol(self.client.capabilities):
            # A client that cannot draw agent/update still gets to read the answer.
            shown = answer if len(answer) <= REPLY_LIMIT else answer[: REPLY_LIMIT - 1] + "…"
            self.client.notify("window/showMessage", show_message("info", shown))
        return {"stopReason": stop}

    async def _create_progress(self) -> str | None:
        token = f"agent-{uuid.uuid4().hex[:12]}"
        try:
            await self.client.request("window/workDoneProgress/create", {"token": token})
        except ClientRequestError as exc:
            log.info("no progress for this prompt: %s", exc)
            return None
        return token

    def _progress(self, token: Any, value: dict[str, Any]) -> None:
        self.client.notify("$/progress", {"token": token, "value": value})

    def cancel(self, params: Mapping[str, Any]) -> None:
        """``agent/cancel``: an unknown session is nothing to cancel (a notification has no answer)."""
        sid = params.get("sessionId")
        live = self.sessions.open.get(sid) if isinstance(sid, str) else None
        if live is not None:
            live.cancel()

    def cancel_request(self, request_id: Any) -> bool:
        """``$/cancelRequest`` for a running prompt: end the turn (it answers stopReason "cancelled")."""
        for live in self.sessions.open.values():
            if live.request_id is not None and live.request_id == request_id:
                live.cancel()
                return True
        return False

    def cancel_progress(self, token: Any) -> None:
        for live in self.sessions.open.values():
            if live.token is not None and live.token == token:
                live.cancel()
