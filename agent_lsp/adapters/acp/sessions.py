"""The session lifecycle over ACP: ``session/new``, ``load``, ``resume``, ``fork``, ``list``, ``close``, ``delete``."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_lsp import events as ev
from agent_lsp.adapters.acp.access import Access, meta
from agent_lsp.adapters.acp.channel import SessionChannel
from agent_lsp.adapters.acp.configuration import SessionConfiguration, opened
from agent_lsp.adapters.acp.jsonrpc import Connection, RequestContext, RpcError
from agent_lsp.adapters.acp.live import AcpSession, SessionTable
from agent_lsp.adapters.acp.params import optional_str, require_str

if TYPE_CHECKING:
    from agent_lsp.runtime import SessionOpening, SessionSetup

log = logging.getLogger(__name__)
LIST_PAGE_SIZE = 50
CLOSE_WAIT_S = 10.0


class SessionLifecycle:
    def __init__(
        self, conn: Connection, access: Access, sessions: SessionTable, configuration: SessionConfiguration
    ) -> None:
        self.conn = conn
        self.access = access
        self.sessions = sessions
        self.configuration = configuration

    async def new(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        """Answered once the session's mode, model and credentials are known; its tools, memory and commands
        are built right behind the answer (a prompt sent at once waits for them)."""
        from agent_lsp.errors import AuthError

        runtime = self.access.runtime()
        channel = self._channel(runtime.new_session_id())
        setup = self._setup(params, channel, mcp_required=True)
        try:
            opening = await runtime.open_session(setup)
        except AuthError as exc:
            raise _auth_required(exc) from exc
        live = self._open(channel, opening, setup)
        return {"sessionId": channel.id, **self._answer(live, ctx)}

    async def load(self, params: dict[str, Any], ctx: RequestContext, *, replay: bool = True) -> Any:
        runtime = self.access.runtime()
        from agent_lsp.errors import AuthError
        from agent_lsp.runtime import SessionOpening
        from agent_lsp.store.sessions import SessionNotFoundError

        channel = self._channel(require_str(params, "sessionId"))
        setup = self._setup(params, channel, mcp_required=replay)
        old = self.sessions.get(channel.id)
        if old is not None:
            await self._shut(old)
        try:
            handle, events = await runtime.load_session(channel.id, setup)
        except (SessionNotFoundError, ValueError) as exc:
            raise RpcError.of("not_found", f"No saved session {channel.id!r} in {setup.cwd}") from exc
        except AuthError as exc:
            raise _auth_required(exc) from exc
        live = self._open(channel, SessionOpening.done(handle), setup)
        if replay:
            await channel.replay(events)
        return self._answer(live, ctx)

    async def resume(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        return await self.load(params, ctx, replay=False)

    async def fork(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        """ACP's unstable ``session/fork``: a new session with the source's conversation (its recording copied
        under the new id), mode, model and checkpoints; the source goes on untouched. ``messageId`` (the
        fork-at-message draft; also read from ``_meta``), else ``_meta.messageIndex``: fork from that user message
        (the conversation before it; its text comes back in ``_meta``)."""
        from agent_lsp.adapters.rewind import (
            BadRewindParams,
            copy_for_fork,
            fork_index,
            fork_point,
            fork_usage,
            message_id_param,
        )
        from agent_lsp.core.rewind import RewindError
        from agent_lsp.errors import AuthError
        from agent_lsp.runtime import SessionOpening

        source = await opened(self.sessions.require(require_str(params, "sessionId")))
        try:
            at = fork_point(
                source.session,
                fork_index(meta(params).get("messageIndex")),
                message_id_param(params.get("messageId", meta(params).get("messageId"))),
            )
        except BadRewindParams as exc:
            raise RpcError.invalid_params(
                exc.field if "messageId" in params else f"_meta.{exc.field}", exc.why
            ) from exc
        except RewindError as exc:
            raise RpcError.of(exc.meaning, str(exc)) from exc
        runtime = self.access.runtime()
        channel = self._channel(runtime.new_session_id())
        setup = self._setup(params, channel, mcp_required=False)
        setup = dataclasses.replace(setup, approval_mode=source.session.policy.mode, model=source.session.model)
        try:
            await asyncio.to_thread(copy_for_fork, source, channel.id, setup.cwd, at)
        except ValueError as exc:
            raise RpcError.of("invalid_request", str(exc)) from exc
        try:
            handle, _events = await runtime.load_session(channel.id, setup)
        except AuthError as exc:
            raise _auth_required(exc) from exc
        live = self._open(channel, SessionOpening.done(handle), setup)
        answer = {"sessionId": channel.id, **self._answer(live, ctx)}
        usage = fork_usage(source.session, handle.session)  # after the answer: the client knows the fork then
        ctx.after_response.append(lambda: channel.send_event(usage))
        if at is not None:
            ids = {"messageId": at.message_id} if at.message_id else {}
            answer["_meta"] = {**answer.get("_meta", {}), "messageIndex": at.index, "messageText": at.text, **ids}
        return answer

    async def list(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        from agent_lsp.adapters.acp.session_setup import absolute_dir

        raw = optional_str(params, "cwd")
        cwds = self.sessions.cwds
        cwd = absolute_dir(raw, "cwd") if raw else (cwds[-1] if cwds else Path.cwd())
        self.sessions.remember(cwd)
        size = meta(params).get("pageSize")
        limit = size if isinstance(size, int) and size > 0 else LIST_PAGE_SIZE
        try:
            page, cursor = await self.access.runtime().list_sessions(cwd, optional_str(params, "cursor"), limit)
        except ValueError as exc:
            raise RpcError.invalid_params("cursor", "is not a cursor this agent gave out") from exc
        sessions = [{"sessionId": s.id, "cwd": s.cwd, "title": s.title, "updatedAt": s.updated} for s in page]
        return {"sessions": sessions, "nextCursor": cursor}

    async def close(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        await self._shut(self.sessions.require(require_str(params, "sessionId")))
        return {}

    async def delete(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        sid = require_str(params, "sessionId")
        live = self.sessions.get(sid)
        if live is not None:
            await self._shut(live)
        if await self.access.runtime().delete_session(sid, [*self.sessions.cwds, Path.cwd()]):
            return {}
        raise RpcError.of("not_found", f"No saved session {sid!r}")

    async def close_all(self) -> None:
        for live in self.sessions.all():
            try:
                await asyncio.wait_for(self._shut(live), CLOSE_WAIT_S)
            except Exception:
                log.exception("closing session %s failed", live.id)

    # ---- steps ----

    def _channel(self, session_id: str) -> SessionChannel:
        client = self.access.client
        return SessionChannel(
            self.conn, session_id, notices=client.notices, compaction=client.compaction, subagents=client.subagents
        )

    def _setup(self, params: dict[str, Any], channel: SessionChannel, *, mcp_required: bool) -> SessionSetup:
        from agent_lsp.adapters.acp.session_setup import session_setup

        return session_setup(params, channel, self.access.client, self.sessions, mcp_required=mcp_required)

    def _open(self, channel: SessionChannel, opening: SessionOpening, setup: SessionSetup) -> AcpSession:
        from agent_lsp.workspace.filesystem import LocalFileSystem

        channel.set_context_size(opening.preview.context_window)
        live = AcpSession(opening=opening, channel=channel, fs=setup.fs or LocalFileSystem())
        self.sessions.add(live)
        return live

    def _answer(self, live: AcpSession, ctx: RequestContext) -> dict[str, Any]:
        """The modes/configOptions answer; the command list and held notices follow once the session is built."""

        def after() -> None:
            self.access.tasks.spawn(self._opened(live), name=f"opened:{live.id}")

        ctx.after_response.append(after)
        return self.configuration.offer(live)

    async def _opened(self, live: AcpSession) -> None:
        try:
            handle = await live.handle()
        except Exception as exc:
            log.exception("building session %s failed", live.id)
            live.channel.open(start_up=[ev.Notice("error", f"This session could not be opened: {exc}")])
            return
        if live.channel.closed:
            return
        # No await from here on: a prompt waiting for the same session resumes after its commands and notices.
        self.configuration.opened(live, handle)
        live.channel.open(start_up=handle.take_notices())

    async def _shut(self, live: AcpSession) -> None:
        live.cancel()
        live.channel.close()
        self.sessions.remove(live)
        try:
            handle = await live.handle()  # a session still being built is closed once it is whole
        except Exception:
            return  # never built: nothing of it is left open (see Runtime._build)
        await handle.aclose()


def _auth_required(exc: Exception) -> RpcError:
    """-32000 saying what to set: no credentials serve this folder (its settings and ``.env`` included)."""
    return RpcError.of("auth_required", f"Authentication required. {exc}")
