"""An editor played by the ACP SDK's own client (acp.ClientSideConnection): permissions, buffers, terminals.

Every raw frame the agent sends is also schema-checked through the connection's stream observer.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import RequestError, connect_to_agent
from acp.connection import StreamDirection, StreamEvent
from acp.schema import (
    AcceptElicitationResponse,
    AllowedOutcome,
    AuthCapabilities,
    CancelElicitationResponse,
    ClientCapabilities,
    CreateTerminalResponse,
    DeclineElicitationResponse,
    DeniedOutcome,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    FileSystemCapabilities,
    KillTerminalResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)
from acp.transports import default_environment

from tests.acp.harness import SchemaChecker
from tests.processes import close_process

if TYPE_CHECKING:
    from acp.client.connection import ClientSideConnection

PermissionAnswer = Callable[[dict[str, Any]], Awaitable[str]]
"""Gets the raw permission request params; returns an optionId, or "cancelled"."""
FormAnswer = Callable[[dict[str, Any]], tuple[str, dict[str, Any] | None]]
"""Gets the raw elicitation/create params; returns the action and the form's content."""


@dataclass
class _Terminal:
    proc: asyncio.subprocess.Process
    output: bytearray = field(default_factory=bytearray)
    reader: asyncio.Task[None] | None = None
    killed: bool = False


class EditorClient:
    """The client side of ACP. ``buffers`` are the editor's open documents (path → text); with ``fs`` on, the
    agent reads through them and its writes land in them (the disk is the editor's business, not the agent's)."""

    def __init__(
        self,
        *,
        fs: bool = False,
        terminal: bool = False,
        answer: PermissionAnswer | str = "proceed_once",
        missing_as_empty: bool = False,
        auth_terminal: bool = False,
        form: FormAnswer | None = None,
    ) -> None:
        self.fs = fs
        self.auth_terminal = auth_terminal  # the client can run a terminal auth method
        self.missing_as_empty = missing_as_empty  # CodeCompanion serves a missing file as empty text
        self.terminal = terminal
        self.answer = answer
        # Sent as the answer's _meta (e.g. {"modifiedContent": ...}: the user took part of an edit or changed it).
        self.answer_meta: dict[str, Any] | None = None
        self.buffers: dict[str, str] = {}
        self.writes: list[tuple[str, str]] = []
        self.reads: list[str] = []
        self.permission_requests: list[dict[str, Any]] = []
        self.terminals: dict[str, _Terminal] = {}
        self.terminal_calls: list[str] = []
        # Given: the client shows MCP servers' forms (elicitation.form) and answers each with this.
        self.form = form
        self.elicitations: list[dict[str, Any]] = []
        self.checker = SchemaChecker()
        self.initialized: Any = None  # the agent's InitializeResponse, once connected

    def capabilities(self) -> ClientCapabilities:
        return ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=self.fs, write_text_file=self.fs),
            terminal=self.terminal,
            auth=AuthCapabilities(terminal=True) if self.auth_terminal else None,
            elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities()) if self.form else None,
        )

    def observe(self, event: StreamEvent) -> None:
        if event.direction == StreamDirection.INCOMING:
            self.checker.incoming(event.message)
        else:
            self.checker.outgoing(event.message)

    # ---- acp.Client ----

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any) -> Any:
        raw = self._raw_request("session/request_permission")
        self.permission_requests.append(raw)
        choice = self.answer if isinstance(self.answer, str) else await self.answer(raw)
        if choice == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(option_id=choice, outcome="selected"), field_meta=self.answer_meta
        )

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        raw = self._raw_request("elicitation/create")
        self.elicitations.append(raw)
        assert self.form is not None, "elicitation/create sent to a client that did not advertise it"
        action, content = self.form(raw)
        if action == "accept":
            return AcceptElicitationResponse(action="accept", content=content)
        if action == "decline":
            return DeclineElicitationResponse(action="decline")
        return CancelElicitationResponse(action="cancel")

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        return None

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> Any:
        self.reads.append(path)
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        try:
            return ReadTextFileResponse(content=await asyncio.to_thread(Path(path).read_text, encoding="utf-8"))
        except FileNotFoundError:
            if self.missing_as_empty:
                return ReadTextFileResponse(content="")
            # Zed reports a missing file as an internal error whose message carries the OS error.
            raise RequestError.internal_error(
                {"details": f"failed to open {path}: No such file or directory (os error 2)"}
            ) from None

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> Any:
        self.writes.append((path, content))
        self.buffers[path] = content
        return WriteTextFileResponse()

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: Any = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> Any:
        self.terminal_calls.append("create")
        full_env = dict(os.environ)
        for var in env or []:
            full_env[var.name] = var.value
        proc = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=cwd,
            env=full_env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        term = _Terminal(proc)
        term.reader = asyncio.ensure_future(self._pump(term))
        tid = f"term-{len(self.terminals) + 1}"
        self.terminals[tid] = term
        return CreateTerminalResponse(terminal_id=tid)

    async def _pump(self, term: _Terminal) -> None:
        assert term.proc.stdout is not None
        while chunk := await term.proc.stdout.read(4096):
            term.output += chunk

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.terminal_calls.append("output")
        term = self.terminals[terminal_id]
        status = self._status(term) if term.proc.returncode is not None else None
        return TerminalOutputResponse(output=term.output.decode(errors="replace"), truncated=False, exit_status=status)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.terminal_calls.append("wait_for_exit")
        term = self.terminals[terminal_id]
        await term.proc.wait()
        if term.reader is not None:
            await term.reader
        status = self._status(term)
        return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    def _status(self, term: _Terminal) -> TerminalExitStatus:
        code = term.proc.returncode
        assert code is not None
        if code < 0:
            return TerminalExitStatus(exit_code=None, signal=signal.Signals(-code).name)
        return TerminalExitStatus(exit_code=code, signal=None)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.terminal_calls.append("kill")
        term = self.terminals[terminal_id]
        term.killed = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(term.proc.pid, signal.SIGKILL)
        await term.proc.wait()
        return KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.terminal_calls.append("release")
        term = self.terminals[terminal_id]
        if term.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(term.proc.pid, signal.SIGKILL)
            await term.proc.wait()
        return ReleaseTerminalResponse()

    def on_connect(self, conn: Any) -> None:
        return None

    # ---- helpers ----

    def _raw_request(self, method: str) -> dict[str, Any]:
        """The raw frame of the newest agent request with this method (the observer saw it first)."""
        for frame in reversed(self.checker.frames):
            if frame.get("method") == method and "id" in frame:
                return frame["params"]  # type: ignore[no-any-return]
        raise AssertionError(f"no raw {method} frame seen")

    def updates(self, session_id: str | None = None) -> list[dict[str, Any]]:
        return self.checker.updates(session_id)


@contextlib.asynccontextmanager
async def connect(editor: EditorClient, argv: list[str], env: dict[str, str], cwd: Path) -> AsyncIterator[Any]:
    """Spawn the agent and yield an initialized acp.ClientSideConnection to it."""
    # The Python SDK still files elicitation/create (stable in ACP v1's schema) under its unstable methods.
    async with spawn_agent(
        editor, argv, env=env, cwd=cwd, observers=[editor.observe], use_unstable_protocol=editor.form is not None
    ) as (conn, _proc):
        editor.initialized = await conn.initialize(protocol_version=1, client_capabilities=editor.capabilities())
        yield conn


@contextlib.asynccontextmanager
async def spawn_agent(
    client: Any, argv: list[str], *, env: dict[str, str], cwd: Path, **connection: Any
) -> AsyncIterator[tuple[ClientSideConnection, asyncio.subprocess.Process]]:
    """The agent as a subprocess and the SDK's ClientSideConnection to it. Not the SDK's spawn_agent_process: its
    cleanup gives the agent 2 s to exit and then signals it, which raises ProcessLookupError when the agent exits
    in between (seen under load); ours waits longer and treats an agent already gone as closed."""
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**default_environment(), **env},
        cwd=str(cwd),
        limit=1 << 26,
    )
    assert proc.stdin is not None and proc.stdout is not None
    conn = connect_to_agent(client, proc.stdin, proc.stdout, **connection)
    try:
        yield conn, proc
    finally:
        try:
            await conn.close()
        finally:
            await close_process(proc)
