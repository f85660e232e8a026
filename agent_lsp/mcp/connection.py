"""One MCP server's connection: a long-lived task that connects, serves the session and follows its tool list.

The task enters and leaves the transport and session contexts itself (anyio cancel scopes must be exited by
the task that entered them); what the tools it finds mean to the session is its owner's business.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, TextIO

from agent_lsp.mcp.config import McpServerSpec
from agent_lsp.mcp.elicitation import Elicitor, answer_elicitation
from agent_lsp.mcp.transport import (
    WatchedReadStream,
    import_sdk,
    last_log_line,
    open_transport,
    server_log_path,
)

logger = logging.getLogger(__name__)

_CLIENT_NAME = "agent-lsp"
_CLIENT_VERSION = "0.1.0"


class ConnectionOwner(Protocol):
    """What a connection reports to: the tools it lists, and why it failed."""

    def register_tools(self, srv: ServerConnection, listed: list[Any]) -> None: ...

    def unregister_tools(self, srv: ServerConnection) -> None: ...

    def report_failure(self, srv: ServerConnection, reason: str) -> None: ...

    def catalog_changed(self, srv: ServerConnection) -> None: ...

    def roots(self) -> Sequence[Path] | None:
        """The session's workspace folders (offered as MCP roots), or None to declare no roots capability."""
        ...

    @property
    def samples(self) -> bool:
        """Whether sampling is offered (then ``sample`` answers a server's sampling/createMessage)."""
        ...

    async def sample(self, server: str, params: Any) -> Any: ...

    @property
    def sign_in(self) -> Callable[[McpServerSpec], Awaitable[None]] | None:
        """Signs in to a server (OAuth, through the user's browser; raises SignInFailed); None: not offered."""
        ...

    @property
    def elicitor(self) -> Elicitor | None:
        """Shows a server's form to the user; None: elicitation is not declared."""
        ...


class ServerConnection:
    """The state of one configured server, and the task (:meth:`run`) that keeps its session alive."""

    def __init__(
        self, spec: McpServerSpec, owner: ConnectionOwner, connect_timeout_s: float, log_dir: Path | None
    ) -> None:
        self.spec = spec
        self.state = "disconnected"
        self.session: Any = None  # the live mcp ClientSession while connected
        self.task: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()
        self.wake = asyncio.Event()
        self.closing = False
        self.eof = False
        self.relist = False
        self.relist_catalog = False
        # What the server offers besides tools (the SDK's Prompt, Resource, ResourceTemplate), as last listed.
        self.prompts: list[Any] = []
        self.resources: list[Any] = []
        self.templates: list[Any] = []
        self.log_path: Path | None = None  # where a stdio server's stderr goes
        self.log_start = 0
        self._owner = owner
        self.connect_timeout_s = spec.connect_timeout_s(connect_timeout_s)
        self._log_dir = log_dir
        self._scope: Any = None  # the anyio cancel scope of run(), so stop() cancels without defeating shields
        self.auth: Any = None  # an HTTP server's OAuth (mcp/oauth.py's McpOAuth): stored tokens, refreshed

    def start(self) -> None:
        """Begin :meth:`run` as a task."""
        self.state = "connecting"
        self.task = asyncio.get_running_loop().create_task(self.run(), name=f"mcp-server:{self.spec.name}")

    def stop(self) -> None:
        """Ask :meth:`run` to end: a live session is left politely; a connection still opening is cancelled
        through its own cancel scope, so the transport's shielded clean-up (stdin closed, then SIGTERM and
        SIGKILL to the server's process group) still runs, which a bare ``Task.cancel`` would cut short."""
        self.closing = True
        if self.session is None and self._scope is not None:
            self._scope.cancel()
        self.wake.set()

    async def run(self) -> None:
        """Connect, serve until closed or gone, and always leave the state settled and ``ready`` set."""
        import anyio

        try:
            with anyio.CancelScope() as self._scope:
                if self.closing:
                    return
                # The SDK takes a second or more to import; in a thread, the editor's protocol loop keeps answering.
                await asyncio.to_thread(import_sdk, self.spec.transport)
                await self._connect_and_serve()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if self.closing or self.state.startswith("failed"):
                logger.debug("MCP server %r raised while shutting down", self.spec.name, exc_info=True)
            else:
                self._owner.report_failure(self, self._failure(exc))
        finally:
            self.session = None
            self._owner.unregister_tools(self)
            if self.prompts or self.resources or self.templates:
                self.prompts, self.resources, self.templates = [], [], []
                self._owner.catalog_changed(self)
            if self.state in ("connecting", "connected"):
                self.state = "disconnected"
            self.ready.set()

    async def _connect_and_serve(self) -> None:
        import anyio
        from mcp import Implementation

        from agent_lsp.mcp.client_session import FormElicitingSession

        async def on_message(message: Any) -> None:
            if isinstance(message, Exception):
                logger.debug("MCP server %r transport error: %s", self.spec.name, message)
            elif type(message).__name__ == "ToolListChangedNotification":
                self.relist = True
                self.wake.set()
            elif type(message).__name__ in ("PromptListChangedNotification", "ResourceListChangedNotification"):
                self.relist_catalog = True
                self.wake.set()

        def on_eof() -> None:
            self.eof = True
            self.wake.set()

        async def sample(context: Any, params: Any) -> Any:
            return await self._owner.sample(self.spec.name, params)

        async def list_roots(context: Any) -> Any:
            from mcp_types import ListRootsResult, Root

            folders = self._owner.roots() or ()
            return ListRootsResult(roots=[Root(uri=p.as_uri(), name=p.name or str(p)) for p in folders])  # type: ignore[arg-type]  # pydantic parses the str

        if self.spec.transport in ("http", "sse"):
            from agent_lsp.mcp import oauth

            self.auth = oauth.transport_auth(self.spec)
            sign_in, wanted = self._owner.sign_in, self.spec.oauth is not None and self.spec.oauth.enabled
            if sign_in is not None and wanted and not await oauth.has_tokens(self.spec):
                try:  # as Gemini CLI does for `oauth.enabled`; a person's time, not the server's
                    await sign_in(self.spec)
                except oauth.SignInFailed as exc:
                    raise ConnectionError(f"signing in failed: {exc}") from None
        # The server's timeout counts from the start of connecting (spawning included), as Gemini CLI's connect
        # timeout does; our own SDK import (and a sign-in) before it is not the server's time.
        deadline = anyio.current_time() + self.connect_timeout_s
        async with contextlib.AsyncExitStack() as stack:
            read, write = await open_transport(self.spec, stack, self._open_log, auth=self.auth)
            session = await stack.enter_async_context(
                FormElicitingSession(
                    WatchedReadStream(read, on_eof),
                    write,
                    message_handler=on_message,
                    client_info=Implementation(name=_CLIENT_NAME, version=_CLIENT_VERSION),
                    # Declaring roots (with list_changed) as Gemini CLI does: the session's workspace folders.
                    list_roots_callback=list_roots if self._owner.roots() is not None else None,
                    sampling_callback=sample if self._owner.samples else None,
                    # Declared (form mode only: FormElicitingSession) when the editor can show a form.
                    elicitation_callback=self._elicit if self._owner.elicitor is not None else None,
                )
            )
            try:
                with anyio.fail_after(max(deadline - anyio.current_time(), 0.0)):
                    await session.initialize()
                    listed = await _list_all(session.list_tools, "tools") if _offers(session, "tools") else []
                    await self._list_catalog(session)
                self.session = session
                self._owner.register_tools(self, listed)
                self.state = "connected"
                self.ready.set()
                self._owner.catalog_changed(self)
                logger.info("MCP server %r connected with %d tool(s)", self.spec.name, len(listed))
                await self._serve(session)
            except Exception as exc:
                # Report now: leaving the transport can take seconds (a stdio server gets time to exit).
                if not self.closing:
                    self._owner.report_failure(self, self._failure(exc))
                self.session = None
                self._owner.unregister_tools(self)
                self.ready.set()
                raise

    async def _elicit(self, context: Any, params: Any) -> Any:
        """A server's elicitation/create, answered through the owner's elicitor."""
        elicitor = self._owner.elicitor
        assert elicitor is not None
        return await answer_elicitation(elicitor, self.spec.name, params)

    async def _serve(self, session: Any) -> None:
        """Sleep until asked to close, the server goes away, or its tool list changes."""
        import anyio

        while not self.closing:
            if self.eof:
                raise ConnectionError("the server closed the connection")
            if self.relist_catalog:
                self.relist_catalog = False
                with anyio.fail_after(self.connect_timeout_s):
                    await self._list_catalog(session)
                self._owner.catalog_changed(self)
                continue
            if self.relist:
                self.relist = False
                with anyio.fail_after(self.connect_timeout_s):
                    listed = await _list_all(session.list_tools, "tools")
                self._owner.unregister_tools(self)
                self._owner.register_tools(self, listed)
                continue
            await self.wake.wait()
            self.wake.clear()

    async def _list_catalog(self, session: Any) -> None:
        """The server's prompts, resources and resource templates, each listed only if the server offers it.
        A listing that fails leaves that kind empty (as in Gemini CLI): the server's tools still work."""
        self.prompts = await self._list_or_none(session, "prompts", session.list_prompts)
        self.resources = await self._list_or_none(session, "resources", session.list_resources)
        self.templates = await self._list_or_none(session, "resources", session.list_resource_templates)

    async def _list_or_none(self, session: Any, capability: str, method: Any) -> list[Any]:
        if not _offers(session, capability):
            return []
        field = {"list_prompts": "prompts", "list_resources": "resources"}.get(method.__name__, "resource_templates")
        try:
            return await _list_all(method, field)
        except Exception:
            logger.warning("MCP server %r: %s failed", self.spec.name, method.__name__, exc_info=True)
            return []

    def _failure(self, exc: BaseException) -> str:
        """Why connecting failed: the server's refusal of our OAuth token when that was it (it names the fix)."""
        refused = getattr(self.auth, "problem", None)
        return refused if isinstance(refused, str) else failure_reason(exc, self.connect_timeout_s)

    def _open_log(self) -> TextIO:
        self.log_path = server_log_path(self.spec, self._log_dir)
        log = open(self.log_path, "a", encoding="utf-8")  # noqa: SIM115 - the transport's exit stack closes it
        self.log_start = log.tell()  # this run's output starts here
        return log

    def last_words(self) -> str | None:
        """The last line a stdio server wrote to its stderr during this run, for a failure report."""
        return last_log_line(self.log_path, self.log_start) if self.log_path is not None else None


def _offers(session: Any, what: str) -> bool:
    """Whether the server declared ``what`` (tools, prompts, resources); one that declared nothing is tried."""
    caps = session.server_capabilities
    return caps is None or getattr(caps, what, None) is not None


async def _list_all(method: Any, field: str) -> list[Any]:
    """Every item of a paginated list method (bounded, in case a server never stops paging)."""
    from mcp_types import PaginatedRequestParams

    items: list[Any] = []
    cursor: str | None = None
    for _page in range(100):
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        result = await method(params=params)
        items.extend(getattr(result, field))
        cursor = result.next_cursor
        if not cursor:
            break
    return items


def failure_reason(exc: BaseException, connect_timeout_s: float | None = None) -> str:
    """A one-line reason for a person: the innermost meaningful error of an exception group."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError) and connect_timeout_s is not None:
        return f"no answer within {connect_timeout_s:g} s"
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def failure_message(srv: ServerConnection, reason: str) -> str:
    """Mark ``srv`` failed and say so for a person: what ended, the server's last words, where its log is."""
    was_connected = srv.state == "connected"
    srv.state = f"failed: {reason}"
    if was_connected:
        message = f"MCP server '{srv.spec.name}' disconnected: {reason}. Its tools are no longer available."
    else:
        message = f"MCP server '{srv.spec.name}' failed to start: {reason}"
    said = srv.last_words()
    if said:
        message += f"; it said: {said}"
    if srv.log_path is not None:
        message += f" (server log: {srv.log_path})"
    return message
