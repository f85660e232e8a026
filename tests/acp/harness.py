"""Test harness for `agent-lsp acp`: replay scripts, schema checks of every agent frame, and two real clients
(the ACP SDK's ClientSideConnection, and a raw newline-JSON client for edge cases)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from tests.acp_schema import CHECKERS, validate, validate_unstable
from tests.processes import close_process

RESPONSE_TYPES = {
    "initialize": "InitializeResponse",
    "authenticate": "AuthenticateResponse",
    "logout": "LogoutResponse",
    "session/new": "NewSessionResponse",
    "session/load": "LoadSessionResponse",
    "session/resume": "ResumeSessionResponse",
    "session/list": "ListSessionsResponse",
    "session/close": "CloseSessionResponse",
    "session/delete": "DeleteSessionResponse",
    "session/prompt": "PromptResponse",
    "session/set_mode": "SetSessionModeResponse",
    "session/set_config_option": "SetSessionConfigOptionResponse",
}
# Draft methods the pinned schemas do not have yet (the LSP proxy RFD): let through when a test's client offers them.
DRAFT_AGENT_REQUESTS = {"lsp/servers", "lsp/request"}
# Methods of the SDK's unstable schema: our requests and the agent's answers are checked against it.
UNSTABLE_TYPES = {"session/fork": ("ForkSessionRequest", "ForkSessionResponse")}
# Session updates of the SDK's unstable schema (sent only to clients that advertised them): checked against it.
UNSTABLE_UPDATES = frozenset({"subagent_update"})
AGENT_REQUEST_TYPES = {
    "session/request_permission": "RequestPermissionRequest",
    "fs/read_text_file": "ReadTextFileRequest",
    "fs/write_text_file": "WriteTextFileRequest",
    "terminal/create": "CreateTerminalRequest",
    "terminal/output": "TerminalOutputRequest",
    "terminal/wait_for_exit": "WaitForTerminalExitRequest",
    "terminal/kill": "KillTerminalRequest",
    "terminal/release": "ReleaseTerminalRequest",
    "elicitation/create": "CreateElicitationRequest",
}


# ---- replay scripts ----


def usage(prompt_tokens: int = 10) -> dict[str, Any]:
    return {"promptTokenCount": prompt_tokens, "candidatesTokenCount": 5, "totalTokenCount": prompt_tokens + 5}


def text_turn(*texts: str) -> dict[str, Any]:
    chunks: list[dict[str, Any]] = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": t}]}}]} for t in texts
    ]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    chunks[-1]["usageMetadata"] = usage()
    return {"method": "generateContentStream", "response": chunks}


def call_turn(*calls: tuple[str, dict[str, Any]], text: str | None = None) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": text}] if text else []
    parts += [{"functionCall": {"name": n, "args": a, "id": f"c{i}-{n}"}} for i, (n, a) in enumerate(calls)]
    return {
        "method": "generateContentStream",
        "response": [
            {
                "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
                "usageMetadata": usage(),
            }
        ],
    }


def write_script(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


# ---- schema checks ----


class SchemaChecker:
    """Validates every frame the agent sends against its ``$defs`` type; remembers our request methods so an
    answer can be typed. Problems are collected (raised by ``assert_clean``) so a test sees them all."""

    def __init__(self) -> None:
        self.sent_methods: dict[Any, str] = {}
        self.frames: list[dict[str, Any]] = []
        self.problems: list[str] = []
        self.checked: dict[str, int] = {}
        CHECKERS.append(self)  # checked at the end of every test (tests/conftest.py), asked or not

    def outgoing(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:
            self.sent_methods[message["id"]] = message["method"]
            if message["method"] in UNSTABLE_TYPES:
                try:
                    validate_unstable(UNSTABLE_TYPES[message["method"]][0], message.get("params"))
                except AssertionError as exc:
                    self.problems.append(str(exc))

    def incoming(self, message: dict[str, Any]) -> None:
        self.frames.append(message)
        try:
            self._check(message)
        except AssertionError as exc:
            self.problems.append(str(exc))

    def _check(self, m: dict[str, Any]) -> None:
        assert m.get("jsonrpc") == "2.0", f"not JSON-RPC 2.0: {m}"
        method = m.get("method")
        if method is None:
            if "error" in m:
                self._validate("Error", m["error"])
                return
            asked = self.sent_methods.get(m.get("id"))
            if asked in RESPONSE_TYPES:
                self._validate(RESPONSE_TYPES[asked], m.get("result"))
            elif asked in UNSTABLE_TYPES:
                validate_unstable(UNSTABLE_TYPES[asked][1], m.get("result"))
                self.checked[UNSTABLE_TYPES[asked][1]] = self.checked.get(UNSTABLE_TYPES[asked][1], 0) + 1
            return
        if method == "session/update":
            if m["params"]["update"].get("sessionUpdate") in UNSTABLE_UPDATES:
                validate_unstable("SessionNotification", m.get("params"))
                self.checked["SubagentUpdate"] = self.checked.get("SubagentUpdate", 0) + 1
                return
            self._validate("SessionNotification", m.get("params"))
            self._validate("SessionUpdate", m["params"]["update"])
        elif method in AGENT_REQUEST_TYPES:
            self._validate(AGENT_REQUEST_TYPES[method], m.get("params"))
        elif method in DRAFT_AGENT_REQUESTS:
            assert isinstance(m.get("params", {}).get("sessionId"), str), f"{method} without a sessionId: {m}"
        else:
            raise AssertionError(f"the agent sent an unexpected method {method}: {m}")

    def _validate(self, name: str, payload: Any) -> None:
        validate(name, payload)
        self.checked[name] = self.checked.get(name, 0) + 1

    def assert_clean(self) -> None:
        assert not self.problems, "\n".join(self.problems)

    def updates(self, session_id: str | None = None) -> list[dict[str, Any]]:
        return [
            f["params"]["update"]
            for f in self.frames
            if f.get("method") == "session/update" and (session_id is None or f["params"]["sessionId"] == session_id)
        ]


# ---- the agent process ----


def agent_env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        "HOME": str(home),
        "AGENT_LSP_HOME": str(home / ".agent-lsp"),
        "AGENT_LSP_TRUST_WORKSPACE": "true",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONUNBUFFERED": "1",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",  # never a real keyring
    }
    env.update(extra)
    return env


def agent_argv(script: Path | None, *more: str) -> list[str]:
    argv = [sys.executable, "-m", "agent_lsp", "acp"]
    if script is not None:
        argv += ["--fake-responses", str(script)]
    return argv + list(more)


class RawClient:
    """Newline-delimited JSON-RPC by hand: full control over frames, ids and timing."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.checker = SchemaChecker()
        self.notifications: list[dict[str, Any]] = []
        self.agent_requests: list[dict[str, Any]] = []
        self.on_request: Callable[[dict[str, Any]], Awaitable[Any]] = self._default_answer
        self._answers: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._next = 0
        self._reader = asyncio.ensure_future(self._read())
        self._stderr: list[bytes] = []
        self._stderr_reader = asyncio.ensure_future(self._read_stderr())
        self.frame_arrived = asyncio.Event()

    @classmethod
    @contextlib.asynccontextmanager
    async def spawn(cls, argv: list[str], env: dict[str, str], cwd: Path) -> AsyncIterator[RawClient]:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=str(cwd),
            limit=1 << 26,
        )
        client = cls(proc)
        try:
            yield client
        finally:
            await client.close()

    async def _default_answer(self, request: dict[str, Any]) -> Any:
        if request["method"] == "session/request_permission":
            return {"outcome": {"outcome": "selected", "optionId": "proceed_once"}}
        raise LookupError(request["method"])

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        while line := await self.proc.stdout.readline():
            message = json.loads(line)
            self.checker.incoming(message)
            self.frame_arrived.set()
            if "method" in message and "id" in message:
                self.agent_requests.append(message)
                task = asyncio.ensure_future(self._answer(message))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            elif "method" in message:
                self.notifications.append(message)
            else:
                future = self._answers.pop(message.get("id"), None)
                if future is not None and not future.done():
                    future.set_result(message)

    async def _read_stderr(self) -> None:
        # Drained all the time: a full stderr pipe would block the agent.
        assert self.proc.stderr is not None
        while chunk := await self.proc.stderr.read(1 << 16):
            self._stderr.append(chunk)

    async def _answer(self, request: dict[str, Any]) -> None:
        try:
            result = await self.on_request(request)
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request["id"], "result": result}
        except LookupError as exc:
            reply = {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": str(exc)}}
        await self.send(reply)

    async def send(self, frame: dict[str, Any] | bytes) -> None:
        assert self.proc.stdin is not None
        if isinstance(frame, dict):
            self.checker.outgoing(frame)
            data = json.dumps(frame).encode() + b"\n"
        else:
            data = frame
        self.proc.stdin.write(data)
        await self.proc.stdin.drain()

    def expect(self, rid: Any) -> asyncio.Future[dict[str, Any]]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._answers[rid] = future
        return future

    async def start_request(self, method: str, params: Any) -> tuple[int, asyncio.Future[dict[str, Any]]]:
        self._next += 1
        rid = self._next
        future = self.expect(rid)
        await self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return rid, future

    async def call(self, method: str, params: Any, wait_s: float = 20) -> dict[str, Any]:
        """The whole response frame (result or error)."""
        _rid, future = await self.start_request(method, params)
        return await asyncio.wait_for(future, wait_s)

    async def result(self, method: str, params: Any, wait_s: float = 20) -> Any:
        response = await self.call(method, params, wait_s)
        assert "result" in response, f"{method} failed: {response}"
        return response["result"]

    async def notify(self, method: str, params: Any) -> None:
        await self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def wait_for(self, predicate: Callable[[], bool], wait_s: float = 15) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        while not predicate():
            self.frame_arrived.clear()
            left = deadline - loop.time()
            assert left > 0, "timed out waiting for the agent"
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.frame_arrived.wait(), min(left, 0.2))

    async def initialize(self, capabilities: dict[str, Any] | None = None) -> Any:
        return await self.result("initialize", {"protocolVersion": 1, "clientCapabilities": capabilities or {}})

    async def close(self) -> None:
        await close_process(self.proc)
        for task in (self._reader, self._stderr_reader):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr).decode(errors="replace")
