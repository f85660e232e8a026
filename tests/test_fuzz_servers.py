"""Both servers under a seeded fuzz, as real subprocesses: nothing on stdin kills, hangs or corrupts them.

Each run sends garbage bytes, invalid UTF-8, truncated, oversized and deeply nested frames, batches and other
wrong shapes, bad ids, every method the server registers (read from its code, so a new method is fuzzed
without touching this file) as a request and as a notification, with wrong params at the top and in each
field of a valid example, answers to ids never asked and cancels of unknown ids. Asserted: the process lives
and still works; every request is answered exactly once, with the code its fault calls for and never -32603
(that would be a bug); nothing answers a notification; stdout holds protocol frames and nothing else; every
ACP frame passes the ACP schema. ``AGENT_LSP_FUZZ_SEED`` replays another run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_lsp.adapters.acp.agent import METHODS as ACP_METHODS
from agent_lsp.adapters.lsp import capabilities as lsp_caps
from agent_lsp.adapters.wire import MAX_DEPTH, MAX_FRAME_ENV
from tests.acp.harness import SchemaChecker, agent_env, text_turn, write_script

SEED = int(os.environ.get("AGENT_LSP_FUZZ_SEED", "1107"))
FRAME_LIMIT = 1 << 16  # the servers' frame limit in these runs (small, so an oversized frame is quick to send)
WAIT_S = 60.0

PARSE, INVALID, NOT_FOUND, PARAMS, INTERNAL = -32700, -32600, -32601, -32602, -32603
# What a well-formed request to a real method may get besides a result: never -32603, -32700 or -32601.
DOMAIN = frozenset({INVALID, PARAMS, -32000, -32001, -32002, -32800})
WRONG_SHAPES: list[Any] = [5, "x", True, 1.5, -7]  # not an object or an array: -32602 whatever the method
ODD_SHAPES: list[Any] = [None, [], [1, "a"], {}, {"unexpected": {"deep": [None]}}]  # method-specific


def _deep(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = {"a": value}
    return value


WRONG_VALUES: list[Any] = [
    None,
    0,
    -1,
    2**63,
    1.5,
    True,
    "",
    "x",
    "\ud800 lone surrogate",
    "\x00\u202e",
    "y" * 5000,
    [],
    [1, None],
    {},
    {"k": [None]},
    _deep(MAX_DEPTH + 20),
]


@dataclass
class Plan:
    """Frames to send and what each request must get back."""

    encode: Callable[[dict[str, Any]], bytes]
    rng: random.Random
    frames: list[bytes] = field(default_factory=list)
    expect: dict[int, frozenset[int] | None] = field(default_factory=dict)  # id → allowed error codes
    methods: dict[int, Any] = field(default_factory=dict)  # id → method (to type a result by its schema)
    null_answers: int = 0  # answers with id null (frames too broken to carry an id)
    next_id: int = 1000

    def request(self, method: Any, params: Any = None, codes: frozenset[int] | None = DOMAIN, **extra: Any) -> int:
        """``codes`` None: any answer but a bug; else the error codes allowed (a result is allowed too unless
        the set is one of the exact ones below)."""
        rid = self.next_id
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": rid, "method": method, **extra}
        if params is not None:
            message["params"] = params
        self.frames.append(self.encode(message))
        self.expect[rid] = codes
        self.methods[rid] = method
        return rid

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.frames.append(self.encode(message))

    def raw(self, message: Any, *, answers: int = 0) -> None:
        self.frames.append(self.encode(message))
        self.null_answers += answers

    def junk(self, data: bytes) -> None:
        self.frames.append(data)
        self.null_answers += 1

    def method_cases(self, method: str, example: Any, *, request_method: bool) -> None:
        """One method: wrong shapes, odd shapes, each field of the example wrong, and the notification forms."""
        codes = DOMAIN if request_method else frozenset({NOT_FOUND, PARAMS})
        for shape in WRONG_SHAPES:
            self.request(method, shape, EXACT_PARAMS)
        for shape in ODD_SHAPES:
            self.request(method, shape, codes)
            self.notify(method, shape)
        if isinstance(example, dict):
            for params in mutations(self.rng, example):
                self.request(method, params, codes)
                self.notify(method, params)
        self.notify(method, self.rng.choice(WRONG_SHAPES))

    def envelope_cases(self) -> None:
        """Frames that are JSON but not JSON-RPC, answers nobody asked for, cancels of unknown ids."""
        self.raw([], answers=1)
        self.raw([{"jsonrpc": "2.0", "id": 1, "method": "initialize"}], answers=1)  # batches are refused whole
        for bad_id in (True, 1.5, [1], {"id": 1}):
            self.raw({"jsonrpc": "2.0", "id": bad_id, "method": "initialize", "params": {}}, answers=1)
        self.raw({"jsonrpc": "2.0"}, answers=1)  # neither a request nor an answer
        self.request(7, {}, EXACT_INVALID)
        self.request("x", None, EXACT_INVALID, jsonrpc="1.0")
        rid = self.next_id
        self.next_id += 1
        self.frames.append(self.encode({"id": rid, "method": "x"}))  # no jsonrpc member
        self.expect[rid] = EXACT_INVALID
        rid = self.next_id
        self.next_id += 1
        self.frames.append(self.encode({"jsonrpc": "2.0", "id": rid}))
        self.expect[rid] = EXACT_INVALID
        self.request(f"fuzz/unknown{self.rng.randrange(1000)}", {}, EXACT_NOT_FOUND)
        self.request("$/fuzz", None, EXACT_NOT_FOUND)
        self.notify("fuzz/unknown", {"a": 1})
        self.notify("$/fuzz")
        self.raw({"method": "fuzz/no-jsonrpc"})  # a notification missing jsonrpc: dropped, not answered
        for answer in ({"result": {}}, {"result": None}, {"error": {"code": 1, "message": "x"}}, {"error": 5}):
            self.raw({"jsonrpc": "2.0", "id": self.rng.choice([424242, "nobody-asked", None]), **answer})


EXACT_PARAMS = frozenset({PARAMS})
EXACT_INVALID = frozenset({INVALID})
EXACT_NOT_FOUND = frozenset({NOT_FOUND})
EXACT = (EXACT_PARAMS, EXACT_INVALID, EXACT_NOT_FOUND)


def mutations(rng: random.Random, example: dict[str, Any]) -> list[dict[str, Any]]:
    """The example with one field (top level or one below) replaced by a value of another kind, or dropped."""
    out: list[dict[str, Any]] = []
    for key, value in example.items():
        out.append({k: v for k, v in example.items() if k != key})
        for wrong in rng.sample(WRONG_VALUES, 3):
            if type(wrong) is not type(value):
                out.append({**example, key: wrong})
        inner = value[0] if isinstance(value, list) and value and isinstance(value[0], dict) else value
        if isinstance(inner, dict) and inner:
            sub = rng.choice(sorted(inner))
            changed = {**inner, sub: rng.choice(WRONG_VALUES)}
            out.append({**example, key: [changed] if isinstance(value, list) else changed})
    out.append({**example, "extra": rng.choice(WRONG_VALUES)})
    return out


def junk_bytes(rng: random.Random, size: int) -> bytes:
    """Random bytes that surely hold something other than whitespace and name no header."""
    data = bytes(rng.randrange(256) for _ in range(size)).replace(b"Content-Length", b"C")
    return b"\x00#" + data


# ---- the subprocess and its output ----


class Server:
    """A server process, its stdout split into frames (anything else is recorded as a problem)."""

    def __init__(self, proc: asyncio.subprocess.Process, split: Callable[[bytearray], list[bytes] | None]) -> None:
        self.proc = proc
        self.split = split
        self.frames: list[dict[str, Any]] = []
        self.problems: list[str] = []
        self.arrived = asyncio.Event()
        self.on_request: Callable[[dict[str, Any]], bytes | None] = lambda _m: None
        self._stderr = bytearray()
        self._tasks = [asyncio.ensure_future(self._read()), asyncio.ensure_future(self._read_stderr())]

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        buffer = bytearray()
        while chunk := await self.proc.stdout.read(1 << 16):
            buffer += chunk
            bodies = self.split(buffer)
            if bodies is None:
                self.problems.append(f"stdout is not frames: {bytes(buffer[:200])!r}")
                return
            for body in bodies:
                try:
                    message = json.loads(body)
                except ValueError:
                    self.problems.append(f"a frame that is not JSON: {body[:200]!r}")
                    continue
                if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
                    self.problems.append(f"not a JSON-RPC 2.0 message: {body[:200]!r}")
                    continue
                self.frames.append(message)
                if "method" in message and "id" in message:
                    reply = self.on_request(message)
                    if reply is not None:
                        await self.send(reply)
            self.arrived.set()
        if buffer.strip():
            self.problems.append(f"stdout ended inside a frame: {bytes(buffer[:200])!r}")

    async def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        while chunk := await self.proc.stderr.read(1 << 16):
            self._stderr += chunk

    @property
    def stderr(self) -> str:
        return self._stderr.decode(errors="replace")

    async def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        await self.proc.stdin.drain()

    def answers(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if "method" not in f]

    async def wait_for(self, predicate: Callable[[], bool], what: str) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_S
        while not predicate():
            assert self.proc.returncode is None, f"the server died ({self.proc.returncode}):\n{self.stderr[-3000:]}"
            left = deadline - loop.time()
            assert left > 0, f"timed out waiting for {what}:\n{self.stderr[-3000:]}"
            self.arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), min(left, 0.5))

    async def call(self, frame: bytes, rid: Any) -> dict[str, Any]:
        await self.send(frame)
        await self.wait_for(lambda: any(a.get("id") == rid for a in self.answers()), f"the answer to {rid}")
        return next(a for a in self.answers() if a.get("id") == rid)

    async def finish(self, *, close: bool = True) -> int:
        if close and self.proc.stdin is not None and not self.proc.stdin.is_closing():
            self.proc.stdin.close()
        try:
            code = await asyncio.wait_for(self.proc.wait(), 20)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):  # it may exit between the wait and the signal
                self.proc.send_signal(signal.SIGKILL)
            await self.proc.wait()
            raise AssertionError(f"the server did not exit at end of input:\n{self.stderr[-3000:]}") from None
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, 5)
        return code


async def spawn(argv: list[str], env: dict[str, str], cwd: Path, split: Callable[[bytearray], Any]) -> Server:
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**env, MAX_FRAME_ENV: str(FRAME_LIMIT)},
        cwd=str(cwd),
    )
    return Server(proc, split)


async def run_plan(server: Server, plan: Plan) -> None:
    """Send every frame (while answers stream back), wait for every answer, then check them all."""
    baseline = len([a for a in server.answers() if a.get("id") is None])
    for i in range(0, len(plan.frames), 64):
        await server.send(b"".join(plan.frames[i : i + 64]))
    expected = set(plan.expect)

    def done() -> bool:
        answered = {a.get("id") for a in server.answers()}
        nulls = len([a for a in server.answers() if a.get("id") is None]) - baseline
        return expected <= answered and nulls >= plan.null_answers

    await server.wait_for(done, f"{len(expected)} answers and {plan.null_answers} parse errors")
    check_answers(server, plan, baseline)


def check_answers(server: Server, plan: Plan, baseline: int) -> None:
    counts: dict[Any, int] = {}
    problems: list[str] = []
    for answer in server.answers():
        rid = answer.get("id")
        counts[rid] = counts.get(rid, 0) + 1
        has_error = isinstance(answer.get("error"), dict)
        if has_error == ("result" in answer):
            problems.append(f"an answer needs exactly one of result and error: {answer}")
        if rid is None:
            if not has_error or answer["error"].get("code") not in (PARSE, INVALID):
                problems.append(f"an answer with id null that is not a parse/invalid-request error: {answer}")
            continue
        if rid not in plan.expect:
            continue  # a request from an earlier step of the run
        allowed = plan.expect[rid]
        code = answer["error"].get("code") if has_error else None
        if code == INTERNAL:
            problems.append(f"internal error (a bug) for {rid}: {answer['error']}")
        elif allowed is None:
            continue
        elif code is None and allowed in EXACT:
            problems.append(f"{rid} should have failed with {set(allowed)}: {answer}")
        elif code is not None and code not in allowed:
            problems.append(f"{rid} answered {code}, expected one of {sorted(allowed)}: {answer['error']}")
    nulls = counts.get(None, 0) - baseline
    if nulls != plan.null_answers:
        problems.append(f"{nulls} answers with id null, expected {plan.null_answers}")
    problems += [f"{rid} answered {n} times" for rid, n in counts.items() if rid is not None and n > 1]
    problems += [f"{rid} never answered" for rid in plan.expect if rid not in counts]
    problems += server.problems
    assert not problems, "\n".join(problems[:40]) + f"\n(seed {SEED})\n{server.stderr[-2000:]}"


def replay_script(tmp_path: Path) -> Path:
    return write_script(tmp_path / "fuzz.jsonl", [text_turn(f"answer {i}") for i in range(400)])


# ---- ACP ----


def acp_frame(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def split_lines(buffer: bytearray) -> list[bytes] | None:
    bodies = []
    while (end := buffer.find(b"\n")) >= 0:
        bodies.append(bytes(buffer[:end]))
        del buffer[: end + 1]
    return bodies


def acp_examples(project: Path, sid: str) -> dict[str, Any]:
    return {
        "initialize": {"protocolVersion": 1, "clientCapabilities": {}},
        "authenticate": {"methodId": "gemini-api-key"},
        "session/new": {"cwd": str(project), "mcpServers": []},
        "session/load": {"sessionId": sid, "cwd": str(project), "mcpServers": []},
        "session/resume": {"sessionId": sid, "cwd": str(project)},
        "session/list": {"cwd": str(project)},
        "session/prompt": {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]},
        "session/set_mode": {"sessionId": sid, "modeId": "default"},
        "session/set_config_option": {"sessionId": sid, "configId": "model", "value": "gemini-2.5-flash"},
        "session/close": {"sessionId": sid},
        "session/delete": {"sessionId": sid},
    }


def acp_plan(rng: random.Random, project: Path, sid: str) -> Plan:
    plan = Plan(acp_frame, rng)
    methods = ACP_METHODS
    examples = acp_examples(project, sid)
    destructive = ("session/close", "session/delete")
    for method in sorted(methods, key=lambda m: (m in destructive, m)):
        plan.method_cases(method, examples.get(method, {}), request_method=True)
    for method in ("session/cancel", "$/cancel_request"):  # notifications sent as requests
        plan.request(method, {"sessionId": sid}, EXACT_NOT_FOUND)
        plan.notify(method, rng.choice([None, 5, [], {"sessionId": [1]}, {"requestId": [1]}, {"requestId": 99}]))
    plan.envelope_cases()
    for _ in range(6):
        plan.junk(junk_bytes(rng, rng.randrange(1, 300)).replace(b"\n", b" ") + b"\n")
    plan.junk(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}' + b"\n")  # truncated
    plan.junk(b"\xff\xfe\xfd not UTF-8\n")
    plan.junk(b'{"a":' * 3000 + b'{"jsonrpc":"2.0","id":1,"method":"initialize"}\n')
    plan.junk(b'{"jsonrpc":"2.0","id":3,"method":"session/list","params":{"p":"' + b"z" * FRAME_LIMIT + b'"}}\n')
    rng.shuffle(plan.frames)  # answers are counted per id, so any order works
    return plan


def acp_schema_check(server: Server, plan_methods: dict[Any, str]) -> None:
    checker = SchemaChecker()
    checker.sent_methods.update(plan_methods)
    for frame in server.frames:
        checker.incoming(frame)
    checker.assert_clean()


async def test_acp_survives_the_fuzz(tmp_path: Path, _private_home: Path) -> None:
    rng = random.Random(SEED)
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.py").write_text("x = 1\n", encoding="utf-8")
    argv = [sys.executable, "-m", "agent_lsp", "acp", "--fake-responses", str(replay_script(tmp_path))]
    env = agent_env(_private_home)

    # Run 1: the frame first (3,000 levels of nesting glued to an initialize), then a working session.
    server = await spawn(argv, env, project, split_lines)
    server.on_request = lambda m: acp_frame(
        {"jsonrpc": "2.0", "id": m["id"], "error": {"code": NOT_FOUND, "message": "no"}}
    )
    await server.send(b'{"a":' * 3000 + b'{"jsonrpc":"2.0","id":1,"method":"initialize"}\n')
    init = await server.call(
        acp_frame(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "initialize",
                "params": {"protocolVersion": 1, "clientCapabilities": {}},
            }
        ),
        2,
    )
    assert init["result"]["protocolVersion"] == 1
    assert server.answers()[0] == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": PARSE, "message": "Parse error: nested too deeply"},
    }
    new = await server.call(
        acp_frame(
            {"jsonrpc": "2.0", "id": 3, "method": "session/new", "params": {"cwd": str(project), "mcpServers": []}}
        ),
        3,
    )
    sid = new["result"]["sessionId"]

    plan = acp_plan(rng, project, sid)
    await run_plan(server, plan)

    # Still alive and still working: a new session, a prompt, a listing.
    fresh = await server.call(
        acp_frame(
            {"jsonrpc": "2.0", "id": 5, "method": "session/new", "params": {"cwd": str(project), "mcpServers": []}}
        ),
        5,
    )
    sid2 = fresh["result"]["sessionId"]
    prompt = {"sessionId": sid2, "prompt": [{"type": "text", "text": "still there?"}]}
    answer = await server.call(acp_frame({"jsonrpc": "2.0", "id": 6, "method": "session/prompt", "params": prompt}), 6)
    assert answer["result"] == {"stopReason": "end_turn"}
    # A frame cut short by the end of input is answered, then the server exits cleanly.
    await server.send(b'{"jsonrpc":"2.0","id":7,"method":"session/li')
    assert await server.finish() == 0
    assert server.answers()[-1]["error"]["code"] == PARSE
    check_answers(server, plan, 2)  # the nested frame and the cut one
    methods = plan.methods | {2: "initialize", 3: "session/new", 5: "session/new", 6: "session/prompt"}
    acp_schema_check(server, methods)


async def test_acp_first_frame_variants(tmp_path: Path, _private_home: Path) -> None:
    """What reaches the fast start-up path first: an oversized line, bad params, a request before initialize."""
    project = tmp_path / "project"
    project.mkdir()
    argv = [sys.executable, "-m", "agent_lsp", "acp", "--fake-responses", str(replay_script(tmp_path))]
    env = agent_env(_private_home)
    server = await spawn(argv, env, project, split_lines)
    await server.send(b"[" * (FRAME_LIMIT * 2) + b"\n")
    await server.wait_for(lambda: len(server.answers()) >= 1, "the oversized frame's answer")
    assert server.answers()[0]["error"]["code"] == PARSE and "limit" in server.answers()[0]["error"]["message"]
    bad = await server.call(acp_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": [1]}), 1)
    assert bad["error"]["code"] == PARAMS
    early = await server.call(
        acp_frame({"jsonrpc": "2.0", "id": 2, "method": "session/list", "params": {"cwd": str(project)}}), 2
    )
    assert early["result"]["sessions"] == []
    ok = await server.call(
        acp_frame({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": 1}}), 3
    )
    assert ok["result"]["protocolVersion"] == 1
    assert await server.finish() == 0
    assert not server.problems
    acp_schema_check(server, {1: "initialize", 2: "session/list", 3: "initialize"})


# ---- LSP ----

_HEADER = re.compile(rb"(?:[A-Za-z-]+: [^\r\n]*\r\n)+\r\n")
_LENGTH = re.compile(rb"Content-Length: (\d+)\r\n")


def split_frames(buffer: bytearray) -> list[bytes] | None:
    """Strict Content-Length framing (what any LSP client expects); None when the bytes are not frames."""
    bodies = []
    while buffer:
        header = _HEADER.match(buffer)
        if header is None:
            if b"\r\n\r\n" in buffer or len(buffer) > 4096:
                return None
            break
        length = _LENGTH.search(header.group(0))
        if length is None:
            return None
        end = header.end() + int(length.group(1))
        if len(buffer) < end:
            break
        bodies.append(bytes(buffer[header.end() : end]))
        del buffer[:end]
    return bodies


def lsp_frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def lsp_frame_variant(rng: random.Random) -> Callable[[dict[str, Any]], bytes]:
    """Sound framing in the forms clients use: extra headers, any case, bare LF line ends."""

    def encode(message: dict[str, Any]) -> bytes:
        body = json.dumps(message).encode()
        style = rng.randrange(4)
        if style == 0:
            return b"content-length: %d\r\n\r\n" % len(body) + body
        if style == 1:
            return (
                b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" % len(body)
                + body
            )
        if style == 2:
            return b"Content-Length: %d\n\n" % len(body) + body
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    return encode


def lsp_methods() -> tuple[set[str], set[str], list[str]]:
    """(request methods, notification methods, commands), as the server registers them."""
    from lsprotocol import types

    from agent_lsp.adapters.launch import LaunchOptions
    from agent_lsp.adapters.lsp.ordering import AnswersFirst
    from agent_lsp.adapters.lsp.server import build_server

    server = build_server(LaunchOptions(), AnswersFirst(lambda _frame: None, lambda: None, lambda _id: None))
    fm, ours = server.protocol.fm, server.agent_protocol.agent_requests
    names = set(fm.features) | set(fm.builtin_features)
    requests = {
        n for n in names if n in ours or (n in types.METHOD_TO_TYPES and types.METHOD_TO_TYPES[n][1] is not None)
    }
    return requests, names - requests, sorted(fm.commands)


def lsp_examples(project: Path, sid: str) -> dict[str, Any]:
    uri = (project / "a.py").as_uri()
    rng = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}
    return {
        "initialize": {"processId": None, "capabilities": {}, "rootUri": project.as_uri()},
        "initialized": {},
        "$/setTrace": {"value": "off"},
        "agent/newSession": {"cwd": str(project)},
        "agent/loadSession": {"sessionId": sid, "cwd": str(project)},
        "agent/listSessions": {"cwd": str(project), "limit": 5},
        "agent/setMode": {"sessionId": sid, "modeId": "default"},
        "agent/setModel": {"sessionId": sid, "modelId": "gemini-2.5-flash"},
        "agent/findFiles": {"query": "a", "limit": 5},
        "agent/prompt": {"sessionId": sid, "prompt": "hi", "context": {"uri": uri, "range": rng, "diagnostics": []}},
        "agent/cancel": {"sessionId": "no-such-session"},
        "textDocument/didOpen": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": "x = 1\n"}},
        "textDocument/didChange": {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "x = 2\n"}]},
        "textDocument/didSave": {"textDocument": {"uri": uri}},
        "textDocument/didClose": {"textDocument": {"uri": uri}},
        "textDocument/codeAction": {"textDocument": {"uri": uri}, "range": rng, "context": {"diagnostics": []}},
        "workspace/didChangeConfiguration": {"settings": {"agentLsp": {"model": "gemini-2.5-flash"}}},
        "workspace/didChangeWorkspaceFolders": {"event": {"added": [], "removed": []}},
        "window/workDoneProgress/cancel": {"token": "no-such-token"},
        "$/cancelRequest": {"id": 987654},
    }


def command_args(command: str, project: Path, sid: str) -> list[Any]:
    uri = (project / "a.py").as_uri()
    rng = {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}
    if command == lsp_caps.CMD_PROMPT:
        return [{"sessionId": sid, "prompt": "hi"}]
    if command == lsp_caps.CMD_CANCEL:
        return [{"sessionId": "no-such-session"}]
    return [{"uri": uri, "range": rng, "diagnostics": [], "instruction": "tidy", "sessionId": sid}]


NEVER_MID_RUN = ("exit", "shutdown")  # they end the connection: tested at the end of a run


def lsp_plan(rng: random.Random, project: Path, sid: str) -> Plan:
    plan = Plan(lsp_frame_variant(rng), rng)
    requests, notifications, commands = lsp_methods()
    examples = lsp_examples(project, sid)
    for method in sorted(requests | notifications):
        if method in NEVER_MID_RUN:
            for shape in WRONG_SHAPES:  # refused before it reaches the handler
                plan.request(method, shape, EXACT_PARAMS)
            continue
        plan.method_cases(method, examples.get(method, {}), request_method=method in requests)
    for command in commands:
        args = command_args(command, project, sid)
        plan.request("workspace/executeCommand", {"command": command, "arguments": args})
        for params in mutations(rng, {"command": command, "arguments": args}):
            plan.request("workspace/executeCommand", params)
        for arg in mutations(rng, args[0]):
            plan.request("workspace/executeCommand", {"command": command, "arguments": [arg]})
    plan.request("exit", {}, frozenset({NOT_FOUND, PARAMS}))  # exit sent as a request must not end anything
    plan.request("$/cancelRequest", {"id": 1}, frozenset({NOT_FOUND, PARAMS}))
    for params in ({"id": 987654}, {"id": "nobody"}, {"id": [1]}, {}, 5):
        plan.notify("$/cancelRequest", params)
    plan.envelope_cases()
    # Framing faults, each followed by a sound frame (a run of junk is answered once, when it starts).
    faults = [
        b"Content-Length: -5\r\n\r\n{}",
        b"Content-Length: abc\r\n\r\n",
        b"Content-Type: text/plain\r\n\r\n",
        b"Content-Length 12\r\n\r\n",
        b"\x00junk\r\nname: value\r\n\r\n",
        b"\xff\xfe garbage line\r\n",
        b"Content-Length: 5\r\n\r\n{bad}",
        b"Content-Length: 0\r\n\r\n",
        b"Content-Length: 4\r\n\r\n\xff\xfe{}",
        b"Content-Length: %d\r\n\r\n" % (FRAME_LIMIT + 10) + b"[" * (FRAME_LIMIT + 10),
        b"Content-Length: 15000\r\n\r\n" + b'{"a":' * 3000,
        b"Content-Length: 2\r\n\r\n[]",
        junk_bytes(rng, 200) + b"\r\n",
        junk_bytes(rng, 20000) + b"\r\n",  # an overlong header line
    ]
    chunks = []
    for fault in faults:
        chunks.append(fault)
        plan.null_answers += 1
        plan.frames, sound = plan.frames[:-1], plan.frames[-1:]
        chunks.extend(sound)
    rng.shuffle(plan.frames)
    plan.frames = plan.frames + chunks
    return plan


async def test_lsp_survives_the_fuzz(tmp_path: Path, _private_home: Path) -> None:
    rng = random.Random(SEED)
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    argv = [sys.executable, "-m", "agent_lsp", "lsp", "--fake-responses", str(replay_script(tmp_path))]
    server = await spawn(argv, agent_env(_private_home), project, split_frames)
    server.on_request = lambda m: lsp_frame({"jsonrpc": "2.0", "id": m["id"], "result": None})
    init = {"processId": None, "capabilities": {}, "rootUri": project.as_uri()}
    first = await server.call(lsp_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}), 1)
    assert first["result"]["capabilities"]["experimental"]["agent"]["protocolVersion"] == 1
    await server.send(lsp_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    new = await server.call(
        lsp_frame({"jsonrpc": "2.0", "id": 2, "method": "agent/newSession", "params": {"cwd": str(project)}}), 2
    )
    sid = new["result"]["sessionId"]

    plan = lsp_plan(rng, project, sid)
    await run_plan(server, plan)

    listed = await server.call(lsp_frame({"jsonrpc": "2.0", "id": 3, "method": "agent/listSessions", "params": {}}), 3)
    assert "sessions" in listed["result"]
    fresh = await server.call(lsp_frame({"jsonrpc": "2.0", "id": 4, "method": "agent/newSession", "params": {}}), 4)
    prompt = {"sessionId": fresh["result"]["sessionId"], "prompt": "still there?"}
    answer = await server.call(lsp_frame({"jsonrpc": "2.0", "id": 5, "method": "agent/prompt", "params": prompt}), 5)
    assert answer["result"] == {"stopReason": "end_turn"}
    # A frame cut short by the end of input: the server exits cleanly, stdout still only frames.
    await server.send(b'Content-Length: 80\r\n\r\n{"jsonrpc":"2.0","id":6,')
    assert await server.finish() == 0
    check_answers(server, plan, 0)


async def test_lsp_before_initialize_and_after_shutdown(tmp_path: Path, _private_home: Path) -> None:
    """Junk and requests ahead of initialize (read before pygls sees them), then shutdown, a late request, exit."""
    project = tmp_path / "project"
    project.mkdir()
    argv = [sys.executable, "-m", "agent_lsp", "lsp", "--fake-responses", str(replay_script(tmp_path))]
    server = await spawn(argv, agent_env(_private_home), project, split_frames)
    await server.send(b"Content-Length: 15000\r\n\r\n" + b'{"a":' * 3000)
    await server.wait_for(lambda: len(server.answers()) >= 1, "the deep frame's answer")
    assert server.answers()[0]["error"]["code"] == PARSE and server.answers()[0]["id"] is None
    early = await server.call(
        lsp_frame({"jsonrpc": "2.0", "id": 1, "method": "textDocument/codeAction", "params": 5}), 1
    )
    assert early["error"]["code"] == PARAMS
    listed = await server.call(
        lsp_frame({"jsonrpc": "2.0", "id": 2, "method": "agent/listSessions", "params": {"cwd": str(project)}}), 2
    )
    assert listed["result"]["sessions"] == []
    init = {"processId": None, "capabilities": {}, "rootUri": project.as_uri()}
    answer = await server.call(lsp_frame({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": init}), 3)
    assert "capabilities" in answer["result"]
    # An id reused while its request still runs: the second is refused, the first keeps its answer.
    # (agent/newSession builds the runtime: still running when the second frame, sent in the same write, arrives;
    # a quick request may be answered first under load, which frees its id.)
    twice = lsp_frame({"jsonrpc": "2.0", "id": "dup", "method": "agent/newSession", "params": {"cwd": str(project)}})
    await server.send(twice * 2)
    await server.wait_for(lambda: len([a for a in server.answers() if a["id"] == "dup"]) == 2, "both answers")
    dup = [a for a in server.answers() if a["id"] == "dup"]
    assert dup[0]["error"]["code"] == INVALID and dup[1]["result"]["sessionId"]
    for params in (5, "x", [], None):
        bad = await server.call(
            lsp_frame({"jsonrpc": "2.0", "id": f"ca-{params}", "method": "textDocument/codeAction", "params": params}),
            f"ca-{params}",
        )
        assert bad["error"]["code"] == PARAMS, bad
    done = await server.call(lsp_frame({"jsonrpc": "2.0", "id": 4, "method": "shutdown"}), 4)
    assert done["result"] is None
    late = await server.call(lsp_frame({"jsonrpc": "2.0", "id": 5, "method": "agent/listSessions", "params": {}}), 5)
    assert late["error"]["code"] == INVALID
    await server.send(lsp_frame({"jsonrpc": "2.0", "method": "exit"}))
    assert await server.finish(close=False) == 0
    assert not server.problems
    ids = [a["id"] for a in server.answers()]
    expected = [None, 1, 2, 3, "dup", "dup", "ca-5", "ca-x", "ca-[]", "ca-None", 4, 5]
    assert sorted(map(str, ids)) == sorted(map(str, expected))


async def test_lsp_malformed_initialize_first(tmp_path: Path, _private_home: Path) -> None:
    """A malformed initialize is answered -32602 naming the field; a good one afterwards still starts the server."""
    project = tmp_path / "project"
    project.mkdir()
    argv = [sys.executable, "-m", "agent_lsp", "lsp", "--fake-responses", str(replay_script(tmp_path))]
    server = await spawn(argv, agent_env(_private_home), project, split_frames)
    bad = await server.call(lsp_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": []}), 1)
    assert bad["error"]["code"] == PARAMS
    wrong = {"processId": "x", "capabilities": {}}
    bad = await server.call(lsp_frame({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": wrong}), 2)
    assert bad["error"]["code"] == PARAMS and "process_id" in bad["error"]["message"]
    init = {"processId": None, "capabilities": {}, "rootUri": project.as_uri()}
    answer = await server.call(lsp_frame({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": init}), 3)
    assert "capabilities" in answer["result"]
    assert await server.finish() == 0
    assert not server.problems
    assert [a["id"] for a in server.answers()] == [1, 2, 3]
