"""A scripted OpenAI-compatible server on 127.0.0.1 for tests: real HTTP, real SSE, strict checks, injectable faults.

Routes (the base URL to give a client is ``fake.url``, ending in ``/v1``):

    POST /v1/chat/completions   streamed (SSE, ``data: [DONE]`` last) or not, from the script
    GET  /v1/models             ``{"object": "list", "data": [...]}`` from ``models`` (plus ``listed``'s fields)
    POST /api/show              Ollama's model description, from ``ollama_show`` (404 for any other model)
    anything else               404 with a plain-text body, as Ollama answers a wrong base URL

Script entries are consumed first in, first out:

    [chunk, chunk, ...]                               ChatCompletionChunk dicts (see text_turn / tool_turn)
    {"chunks": [...], "delay_s": 0.1}                 a pause before each chunk
    {"chunks": [...], "cut_after": 2}                 send two chunks, then drop the connection
    {"status": 429, "retry_after": 1}                 an error with a Retry-After header
    {"status": 400, "message": "...", "code": "..."}  any error, OpenAI's error JSON shape

Every chat request is checked strictly (roles, every assistant tool call answered in order by a ``tool``
message with its id, JSON arguments, JSON-Schema tools, no thoughts sent back, usage asked for when
streaming). A request that breaks a rule is answered 400 and the problem is kept in ``violations``.
A request naming a model outside ``models`` (when set) gets OpenAI's 404 ``model_not_found``.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.fakes.local_server import LocalServer, StreamingHandler

log = logging.getLogger(__name__)

ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_SCHEMA_TYPES = frozenset({"object", "string", "integer", "number", "boolean", "array", "null"})


# ---- building scripted turns ----


def _chunk(delta: dict[str, Any], finish: str | None = None, model: str = "fake-model") -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def usage_chunk(prompt: int = 40, completion: int = 5, reasoning: int = 0) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if reasoning:
        usage["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    return {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": "fake-model",
            "choices": [], "usage": usage}  # fmt: skip


def text_turn(*texts: str, reasoning: Sequence[str] = (), finish: str = "stop", prompt_tokens: int = 40) -> list[Any]:
    """A streamed answer: reasoning deltas (``reasoning_content``), then text deltas, then the usage chunk."""
    chunks = [_chunk({"role": "assistant", "content": ""})]
    chunks += [_chunk({"reasoning_content": r}) for r in reasoning]
    chunks += [_chunk({"content": t}) for t in texts]
    chunks.append(_chunk({}, finish))
    chunks.append(usage_chunk(prompt_tokens))
    return chunks


def tool_turn(
    *calls: tuple[str, dict[str, Any]], text: str | None = None, pieces: int = 3, id_prefix: str = "call_"
) -> list[Any]:
    """A streamed tool-call answer: each call's id and name first, its JSON arguments split in ``pieces``
    fragments, and the calls' fragments interleaved across chunks as real servers may send them."""
    chunks = [_chunk({"role": "assistant", "content": None})]
    if text:
        chunks.append(_chunk({"content": text}))
    fragments: list[list[dict[str, Any]]] = []
    for index, (name, args) in enumerate(calls):
        arguments = json.dumps(args)
        size = max(1, -(-len(arguments) // pieces))
        parts = [arguments[i : i + size] for i in range(0, len(arguments), size)] or [""]
        own = [{"index": index, "id": f"{id_prefix}{index}_{name}", "type": "function",
                "function": {"name": name, "arguments": ""}}]  # fmt: skip
        own += [{"index": index, "function": {"arguments": p}} for p in parts]
        fragments.append(own)
    # Interleave: first fragment of every call, then the second of every call, and so on.
    for step in range(max((len(f) for f in fragments), default=0)):
        batch = [f[step] for f in fragments if step < len(f)]
        chunks.append(_chunk({"tool_calls": batch}))
    chunks.append(_chunk({}, "tool_calls"))
    chunks.append(usage_chunk())
    return chunks


# ---- strict checks ----


def check_chat_request(body: Any, *, require_usage: bool = True) -> list[str]:
    """Every way ``body`` breaks what OpenAI-compatible servers accept (empty when it is fine)."""
    problems: list[str] = []
    if not isinstance(body, dict):
        return ["the body is not a JSON object"]
    if not isinstance(body.get("model"), str) or not body["model"]:
        problems.append("model must be a non-empty string")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return [*problems, "messages must be a non-empty list"]
    pending: list[str] = []
    seen_ids: set[str] = set()
    for i, m in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(m, dict):
            problems.append(f"{where} is not an object")
            continue
        role = m.get("role")
        if role not in ROLES:
            problems.append(f"{where}.role {role!r} is not a valid role")
            continue
        extra = set(m) - {"role", "content", "tool_calls", "tool_call_id", "name"}
        if extra:
            problems.append(f"{where} has unexpected fields {sorted(extra)} (thoughts must not be sent back)")
        if role == "tool":
            call_id = m.get("tool_call_id")
            if not pending:
                problems.append(f"{where} is a tool message that answers no pending tool call")
            elif call_id != pending[0]:
                problems.append(f"{where}.tool_call_id {call_id!r} should answer {pending[0]!r} (calls in order)")
            else:
                pending.pop(0)
            if not isinstance(m.get("content"), str):
                problems.append(f"{where}.content of a tool message must be a string")
            continue
        if pending:
            problems.append(f"{where} ({role}) comes before tool calls {pending} were answered")
            pending.clear()
        if role == "system" and i != 0:
            problems.append(f"{where}: a system message belongs first")
        content = m.get("content")
        if role == "assistant":
            calls = m.get("tool_calls") or []
            if content is None and not calls:
                problems.append(f"{where}: an assistant message needs content or tool_calls")
            for j, call in enumerate(calls):
                cw = f"{where}.tool_calls[{j}]"
                cid = call.get("id") if isinstance(call, dict) else None
                if not isinstance(cid, str) or not cid:
                    problems.append(f"{cw}.id is missing")
                    continue
                if cid in seen_ids:
                    problems.append(f"{cw}.id {cid!r} is used twice")
                seen_ids.add(cid)
                pending.append(cid)
                function = call.get("function") or {}
                if call.get("type") != "function" or not _NAME.match(str(function.get("name", ""))):
                    problems.append(f"{cw} must be a function call with a valid name")
                try:
                    args = json.loads(function.get("arguments", ""))
                    if not isinstance(args, dict):
                        problems.append(f"{cw}.function.arguments is not a JSON object")
                except (TypeError, json.JSONDecodeError):
                    problems.append(f"{cw}.function.arguments is not JSON")
        elif isinstance(content, list):
            for j, part in enumerate(content):
                problems += _part_problems(part, f"{where}.content[{j}]")
        elif not isinstance(content, str):
            problems.append(f"{where}.content must be a string or a list of parts")
    if pending:
        problems.append(f"tool calls {pending} were never answered")
    if messages and isinstance(messages[-1], dict) and messages[-1].get("role") == "assistant":
        problems.append("the conversation ends with an assistant message")
    for k, tool in enumerate(body.get("tools") or []):
        tw = f"tools[{k}]"
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(function, dict):
            problems.append(f"{tw} must be {{type: function, function: {{...}}}}")
            continue
        if not _NAME.match(str(function.get("name", ""))):
            problems.append(f"{tw}.function.name is not a valid name")
        params = function.get("parameters")
        if not isinstance(params, dict) or params.get("type") != "object":
            problems.append(f"{tw}.function.parameters must be an object schema")
        else:
            problems += [f"{tw}.function.parameters{p}" for p in _schema_problems(params)]
    if require_usage and body.get("stream") and not (body.get("stream_options") or {}).get("include_usage"):
        problems.append("a streamed request should ask for usage (stream_options.include_usage)")
    return problems


def _part_problems(part: Any, where: str) -> list[str]:
    """A user content part as Chat Completions defines them: text, image_url, input_audio (wav/mp3), file."""
    kind = part.get("type") if isinstance(part, dict) else None
    if kind not in ("text", "image_url", "input_audio", "file"):
        return [f"{where} is not a text, image_url, input_audio or file part"]
    if kind == "input_audio":
        audio = part.get("input_audio")
        if not isinstance(audio, dict) or audio.get("format") not in ("wav", "mp3") or not audio.get("data"):
            return [f"{where}.input_audio needs data and a format of wav or mp3"]
    if kind == "file":
        file = part.get("file")
        if not isinstance(file, dict) or not str(file.get("file_data", "")).startswith("data:"):
            return [f"{where}.file needs file_data as a data: URL"]
    return []


def _schema_problems(schema: Any, path: str = "") -> list[str]:
    if not isinstance(schema, dict):
        return []
    out: list[str] = []
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
    for k in kinds:
        if k not in _SCHEMA_TYPES:
            out.append(f"{path}.type {k!r} is not a JSON Schema type")
    for bad in ("nullable", "propertyOrdering"):
        if bad in schema:
            out.append(f"{path} has the Gemini-only key {bad!r}")
    for name, sub in (schema.get("properties") or {}).items():
        out += _schema_problems(sub, f"{path}.properties.{name}")
    if "items" in schema:
        out += _schema_problems(schema["items"], f"{path}.items")
    return out


# ---- the server ----


@dataclass
class RecordedRequest:
    method: str
    path: str
    body: Any
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def api_key(self) -> str | None:
        auth = self.headers.get("authorization", "")
        return auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], fake: FakeOpenAI) -> None:
        super().__init__(address, _Handler)
        self.fake = fake

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client closing an idle keep-alive connection is normal, not a server error worth a traceback.
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def error_body(message: str, code: str | None = None, kind: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


class _Handler(StreamingHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.fake._connected()

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("fake_openai: " + format, *args)

    def _headers(self) -> dict[str, str]:
        return {k.lower(): v for k, v in self.headers.items()}

    def _refused_key(self) -> bool:
        """Answer a request whose key the fake does not accept, as OpenAI does; True if it did."""
        accepted = self.server.fake.api_keys
        auth = self.headers.get("Authorization") or ""
        if accepted is None or auth.removeprefix("Bearer ") in accepted:
            return False
        self._send_json(401, error_body("Incorrect API key provided.", "invalid_api_key"))
        return True

    def do_GET(self) -> None:
        fake = self.server.fake
        path = urlsplit(self.path).path
        fake._record(RecordedRequest("GET", path, None, self._headers()))
        if self._refused_key():
            return
        if path == "/v1/models":
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in fake.models]
            for entry in data:
                if entry["id"] in fake.windows:  # as vLLM reports it
                    entry["max_model_len"] = fake.windows[entry["id"]]
                entry.update(fake.listed.get(entry["id"], {}))  # e.g. OpenRouter's architecture
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_text(404, "404 page not found")

    def do_POST(self) -> None:
        fake = self.server.fake
        path = urlsplit(self.path).path
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = None
        fake._record(RecordedRequest("POST", path, body, self._headers()))
        if self._refused_key():
            return
        if path == "/api/show" and isinstance(body, dict) and body.get("model") in fake.ollama_show:
            self._send_json(200, fake.ollama_show[body["model"]])  # as Ollama describes a model
            return
        if path != "/v1/chat/completions":
            self._send_text(404, "404 page not found")
            return
        problems = check_chat_request(body, require_usage=fake.require_usage)
        if problems:
            fake._violation(problems)
            self._send_json(400, error_body("fake_openai: " + "; ".join(problems)))
            return
        if fake.models and body["model"] not in fake.models:
            message = f"The model `{body['model']}` does not exist or you do not have access to it."
            self._send_json(404, error_body(message, "model_not_found"))
            return
        entry = fake._take()
        if entry is None:
            self._send_json(500, error_body("fake_openai: no scripted response left", kind="server_error"))
            return
        try:
            self._respond(entry, bool(body.get("stream")))
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _respond(self, entry: dict[str, Any], stream: bool) -> None:
        delay = float(entry.get("delay_s") or 0.0)
        if "status" in entry:
            if delay:
                time.sleep(delay)
            code = int(entry["status"])
            headers = {}
            if entry.get("retry_after") is not None:
                headers["Retry-After"] = str(entry["retry_after"])
            kind = "server_error" if code >= 500 else "rate_limit_error" if code == 429 else "invalid_request_error"
            message = str(entry.get("message") or f"fake_openai scripted {code}")
            self._send_json(code, error_body(message, entry.get("code"), kind), headers)
            return
        chunks: list[dict[str, Any]] = entry["chunks"]
        if not stream:
            self._send_json(200, merge_chunks(chunks))
            return
        self.stream_sse(chunks, delay=delay, cut_after=entry.get("cut_after"), done=b"data: [DONE]\n\n")

    def _send_json(self, code: int, payload: Any, extra: dict[str, str] | None = None) -> None:
        self._send(code, json.dumps(payload).encode(), "application/json", extra)

    def _send_text(self, code: int, text: str) -> None:
        self._send(code, text.encode(), "text/plain; charset=utf-8")

    def _send(self, code: int, data: bytes, kind: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


def merge_chunks(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """A stream's chunks as one ChatCompletion (for ``stream: false`` requests)."""
    text = ""
    calls: dict[int, dict[str, Any]] = {}
    finish = None
    usage = None
    for chunk in chunks:
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            text += delta.get("content") or ""
            for frag in delta.get("tool_calls") or []:
                call = calls.setdefault(frag["index"], {"id": "", "type": "function",
                                                        "function": {"name": "", "arguments": ""}})  # fmt: skip
                call["id"] = frag.get("id") or call["id"]
                fn = frag.get("function") or {}
                call["function"]["name"] = fn.get("name") or call["function"]["name"]
                call["function"]["arguments"] += fn.get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    out: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": "fake-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish or "stop"}],
    }
    if usage:
        out["usage"] = usage
    return out


class FakeOpenAI(LocalServer):
    """The server. Use as a context manager or call start()/stop(); ``url`` is the base URL (ends in /v1)."""

    def __init__(self, script: Iterable[Any] = (), *, models: Sequence[str] = (), host: str = "127.0.0.1") -> None:
        self._lock = threading.Lock()
        self._script: deque[dict[str, Any]] = deque()
        self._requests: list[RecordedRequest] = []
        self.violations: list[str] = []
        self.require_usage = True  # off to play an old server that knows no stream_options
        self.models = list(models)
        # The keys it accepts (None: any). Another key is answered as OpenAI answers one: 401 invalid_api_key.
        self.api_keys: set[str] | None = None
        self.windows: dict[str, int] = {}  # max_model_len to report per model in GET /v1/models
        self.listed: dict[str, dict[str, Any]] = {}  # more fields of a model's GET /v1/models entry
        self.ollama_show: dict[str, dict[str, Any]] = {}  # POST /api/show answers by model, as Ollama gives them
        self._host = host
        self.connections = 0  # TCP connections accepted: a client that keeps its connection opens one
        super().__init__()
        self.push(*script)

    def push(self, *entries: Any) -> None:
        normalized = [{"chunks": e} if isinstance(e, list) else dict(e) for e in entries]
        with self._lock:
            self._script.extend(normalized)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == "/v1/chat/completions"]

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _connected(self) -> None:
        with self._lock:
            self.connections += 1

    def _violation(self, problems: list[str]) -> None:
        with self._lock:
            self.violations.extend(problems)

    def _take(self) -> dict[str, Any] | None:
        with self._lock:
            return self._script.popleft() if self._script else None

    thread_name = "fake-openai"
    url_suffix = "/v1"

    def _create_server(self) -> _Server:
        return _Server((self._host, 0), self)
