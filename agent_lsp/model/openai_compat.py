"""OpenAIClient: the ModelClient for OpenAI-compatible Chat Completions; the only module that imports ``openai``.

The SDK is imported lazily (first request), so importing this module costs nothing at start-up. Our neutral
history converts to OpenAI messages here (every assistant tool call answered by a ``tool`` message with its
id, in order; thoughts never sent back), and streamed deltas assemble back into our ModelChunks.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import re
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from agent_lsp.errors import AuthError, ModelError, ModelStreamInterrupted
from agent_lsp.events import Usage
from agent_lsp.model.base import (
    FunctionCall,
    FunctionDeclaration,
    GenerateRequest,
    ModelChunk,
    Part,
    mapped_errors,
)
from agent_lsp.model.provider import OpenAIConfig

log = logging.getLogger(__name__)

_MAX_MESSAGE = 300

# OpenAI finish reasons → the Gemini names the core reads.
FINISH_REASONS = {
    "stop": "STOP",
    "tool_calls": "STOP",
    "function_call": "STOP",
    "length": "MAX_TOKENS",
    "content_filter": "SAFETY",
}


def warm() -> None:
    """Import the SDK now (from a warm-up thread), so the first request does not pay for it."""
    import openai  # noqa: F401


class OpenAIClient:
    """A ModelClient talking Chat Completions to any OpenAI-compatible server through the official SDK.

    One instance belongs to one event loop, because the SDK's HTTP connection pool does.
    """

    provider = "openai"

    def __init__(self, config: OpenAIConfig, *, timeout_s: float | None = None) -> None:
        self._config = config
        self._timeout_s = timeout_s
        self._sdk: Any = None
        # Some older servers refuse stream_options; learnt once, then usage is simply not asked for.
        self._stream_options = True
        self._streaming = True  # off once the endpoint said it cannot stream
        self._listed_windows: dict[str, int] = {}  # context windows the model list reported

    def __repr__(self) -> str:
        return f"OpenAIClient({self._config!r})"

    @property
    def config(self) -> OpenAIConfig:
        return self._config

    def describe(self) -> str:
        return self._config.describe()

    def context_window(self, model: str) -> int:
        """Settings for this model, else what the endpoint's model list said, else the settings' default."""
        own = self._config.limits.get(model)
        if own is not None and own.context_window:
            return own.context_window
        return self._listed_windows.get(model) or self._config.context_window(model)

    def _client(self) -> Any:
        if self._sdk is None:
            import openai

            # Retries are ours (core/retry.py), so the SDK's own are off.
            self._sdk = openai.AsyncOpenAI(
                api_key=self._config.api_key,
                base_url=self._config.base_url,
                max_retries=0,
                timeout=self._timeout_s if self._timeout_s is not None else 600.0,
            )
            log.debug("openai client ready (%s)", self._config.describe())
        return self._sdk

    async def _ready(self) -> Any:
        """The SDK client; the first call imports ``openai`` (about a second of CPU) off the event loop."""
        if self._sdk is None:
            await asyncio.to_thread(self._client)
        return self._client()

    def _mapped_errors(
        self, model: str, interrupted: Callable[[], bool] = lambda: False
    ) -> AbstractContextManager[None]:
        """SDK and network failures become ModelError/AuthError/ModelStreamInterrupted; others pass."""
        return mapped_errors(lambda exc, late: map_error(exc, model, self._config, interrupted=late), interrupted)

    def _params(self, request: GenerateRequest, *, stream: bool) -> dict[str, Any]:
        params: dict[str, Any] = {"model": request.model, "messages": to_messages(request)}
        if request.tools:
            params["tools"] = to_tools(request.tools)
        if request.temperature is not None:
            params["temperature"] = request.temperature
        limit = self._config.limits_for(request.model).max_output_tokens
        if limit:
            params["max_tokens"] = limit
        if request.response_json_schema is not None:
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "response", "schema": request.response_json_schema},
            }
        if stream:
            params["stream"] = True
            if self._stream_options:
                params["stream_options"] = {"include_usage": True}
        return params

    async def stream(self, request: GenerateRequest) -> AsyncIterator[ModelChunk]:
        if not self._streaming:
            yield await self.generate(request)
            return
        try:
            async for chunk in self._stream(request):
                yield chunk
        except ModelError as exc:
            if exc.status != 400 or not _NO_STREAMING.search(str(exc)):
                raise
            # An endpoint without streaming: ask for whole answers from now on.
            log.info("the endpoint does not stream; asking for whole responses")
            self._streaming = False
            yield await self.generate(request)

    async def _stream(self, request: GenerateRequest) -> AsyncIterator[ModelChunk]:
        yielded = False
        responses: Any = None
        assembler = StreamAssembler()
        try:
            with self._mapped_errors(request.model, lambda: yielded):
                responses = await self._create(request)
                async for raw in responses:
                    for chunk in assembler.feed(raw):
                        yielded = True
                        yield chunk
            yield assembler.finish()
        finally:
            # Release the HTTP response now rather than at garbage collection (matters on cancel).
            close = getattr(responses, "close", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    await close()

    async def _create(self, request: GenerateRequest) -> Any:
        completions = (await self._ready()).chat.completions
        try:
            return await completions.create(**self._params(request, stream=True))
        except Exception as exc:
            if self._stream_options and _status(exc) == 400 and "stream_options" in _message(exc):
                log.info("the endpoint refuses stream_options; streaming without usage figures")
                self._stream_options = False
                return await completions.create(**self._params(request, stream=True))
            raise

    async def generate(self, request: GenerateRequest) -> ModelChunk:
        with self._mapped_errors(request.model):
            sdk = await self._ready()
            response = await sdk.chat.completions.create(**self._params(request, stream=False))
        return completion_to_chunk(response)

    async def count_tokens(self, request: GenerateRequest) -> int:
        """An estimate (about four characters a token): Chat Completions has no counting endpoint."""
        size = len(json.dumps(to_messages(request), ensure_ascii=False))
        return max(1, size // 4)

    async def list_models(self, timeout_s: float = 5.0) -> list[str]:
        """The model ids the endpoint offers (``GET /models``), sorted.

        One plain GET through httpx rather than the SDK: a model picker must not wait the second or so that
        importing ``openai`` takes, and this is all the listing needs."""
        import httpx

        url = f"{self._config.base_url}/models"
        headers = {"Authorization": f"Bearer {self._config.api_key}", "Accept": "application/json"}
        try:
            async with httpx.AsyncClient(timeout=timeout_s) as http:
                response = await http.get(url, headers=headers)
        except httpx.HTTPError as exc:
            detail = _clean(str(exc), self._config) or type(exc).__name__
            raise ModelError(f"Could not list the models of {self._config.base_url} ({detail}).") from exc
        if response.status_code in (401, 403):
            raise AuthError(
                f"{url}: {response.status_code}. The endpoint refused the key.", status=response.status_code
            )
        if response.status_code >= 400:
            raise ModelError(f"{url}: {response.status_code}", status=response.status_code)
        try:
            data = response.json().get("data") or []
        except (ValueError, AttributeError) as exc:
            raise ModelError(f"{url} did not answer with a model list") from exc
        ids: set[str] = set()
        for entry in data:
            if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or not entry["id"]:
                continue
            ids.add(entry["id"])
            # vLLM says max_model_len, OpenRouter context_length; most local servers say nothing.
            window = entry.get("max_model_len") or entry.get("context_length")
            if isinstance(window, int) and window > 0:
                self._listed_windows[entry["id"]] = window
        return sorted(ids)

    async def aclose(self) -> None:
        sdk, self._sdk = self._sdk, None
        if sdk is not None:
            await sdk.close()


# -- history → messages ------------------------------------------------------------------------------


def to_messages(request: GenerateRequest) -> list[dict[str, Any]]:
    """Our contents as Chat Completions messages.

    Each assistant message's tool calls are answered by ``tool`` messages right after it, in the calls' order,
    with their ids (made up when the history has none, e.g. from Gemini); a call left without a response gets
    one saying so, so the conversation is always one the server accepts. Thoughts are never sent back.
    """
    messages: list[dict[str, Any]] = []
    if request.system_instruction:
        messages.append({"role": "system", "content": request.system_instruction})
    # (id sent, name, id in our history) of the last assistant message's calls not answered yet
    pending: list[tuple[str, str, str | None]] = []
    used: set[str] = set()
    counter = 0
    for content in request.contents:
        if content.role == "model":
            _answer_missing(messages, pending)
            text = "".join(p.text or "" for p in content.parts if p.text and not p.thought)
            calls: list[dict[str, Any]] = []
            for part in content.parts:
                if part.function_call is None:
                    continue
                counter += 1
                own_id = part.function_call.id
                call_id = own_id or f"call_{counter}"
                if call_id in used:
                    # Some servers number calls per response (call_0 every time): ids must be unique per chat.
                    call_id = f"{call_id}_{counter}"
                used.add(call_id)
                pending.append((call_id, part.function_call.name, own_id))
                calls.append(
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": part.function_call.name,
                            "arguments": json.dumps(part.function_call.args, ensure_ascii=False),
                        },
                    }
                )
            if not text and not calls:
                continue  # only thoughts or signatures: nothing the server needs
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                message["tool_calls"] = calls
            messages.append(message)
            continue
        user_parts: list[dict[str, Any]] = []
        for part in content.parts:
            if part.function_response is not None:
                response = part.function_response
                index = next((i for i, (_, _, own) in enumerate(pending) if response.id and own == response.id), None)
                if index is None:
                    index = next((i for i, (_, name, _) in enumerate(pending) if name == response.name), None)
                if index is None:
                    # A response to nothing we sent: keep its content as plain text rather than break the chat.
                    user_parts.append({"type": "text", "text": f"[{response.name} result] {_tool_text(response)}"})
                    continue
                # Answer in the calls' order: earlier calls without a response here are answered as missing.
                for cid, _name, _own in pending[:index]:
                    messages.append({"role": "tool", "tool_call_id": cid, "content": "No result was recorded."})
                call_id = pending[index][0]
                del pending[: index + 1]
                messages.append({"role": "tool", "tool_call_id": call_id, "content": _tool_text(response)})
            elif part.text is not None and not part.thought:
                if part.text:
                    user_parts.append({"type": "text", "text": part.text})
            elif part.inline_data is not None:
                user_parts.append(_inline_part(part))
        if user_parts:
            _answer_missing(messages, pending)
            if all(p["type"] == "text" for p in user_parts):
                messages.append({"role": "user", "content": "\n".join(p["text"] for p in user_parts)})
            else:
                messages.append({"role": "user", "content": user_parts})
    _answer_missing(messages, pending)
    return messages


def _answer_missing(messages: list[dict[str, Any]], pending: list[tuple[str, str, str | None]]) -> None:
    for call_id, _name, _own in pending:
        messages.append({"role": "tool", "tool_call_id": call_id, "content": "No result was recorded."})
    pending.clear()


def _tool_text(response: Any) -> str:
    body = response.response
    if isinstance(body, dict):
        if set(body) == {"output"} and isinstance(body["output"], str):
            return body["output"]
        if set(body) == {"error"} and isinstance(body["error"], str):
            return f"Error: {body['error']}"
    return json.dumps(body, ensure_ascii=False)


def _inline_part(part: Part) -> dict[str, Any]:
    assert part.inline_data is not None
    mime = part.inline_data.mime_type
    if mime.startswith("image/"):
        data = base64.b64encode(part.inline_data.data).decode("ascii")
        return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}
    if mime.startswith("text/"):
        return {"type": "text", "text": part.inline_data.data.decode("utf-8", "replace")}
    return {"type": "text", "text": f"[an attachment of type {mime} was left out: this endpoint takes text and images]"}


def to_tools(declarations: tuple[FunctionDeclaration, ...]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {"name": d.name, "description": d.description, "parameters": to_json_schema(d.parameters)},
        }
        for d in declarations
    ]


# Gemini's Schema keys that JSON Schema spells differently or does not have.
_GEMINI_ONLY = frozenset({"propertyOrdering", "nullable"})


def to_json_schema(schema: Any) -> Any:
    """A Gemini-style schema (upper-case OBJECT/STRING types, ``nullable``, ``propertyOrdering``) as JSON Schema."""
    if isinstance(schema, list):
        return [to_json_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _GEMINI_ONLY:
            continue
        if key == "type" and isinstance(value, str):
            out[key] = value.lower()
        elif key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            out[key] = {name: to_json_schema(sub) for name, sub in value.items()}
        elif key in ("items", "anyOf", "oneOf", "allOf", "not", "additionalProperties"):
            out[key] = to_json_schema(value)
        else:
            out[key] = value
    if schema.get("nullable") is True and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    if out.get("type") == "object" and "properties" not in out:
        out["properties"] = {}
    return out


# -- stream → chunks -----------------------------------------------------------------------------------


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: str = ""


class StreamAssembler:
    """Turns ChatCompletionChunks into ModelChunks: text and reasoning as they come, tool calls whole at the end.

    Tool calls arrive as fragments keyed by ``index`` (id and name usually first, then argument pieces) and
    are only complete once the stream finishes, so they go out in the last chunk with the finish reason and
    the usage (which ``stream_options.include_usage`` puts in a final chunk without choices)."""

    def __init__(self) -> None:
        self.calls: dict[int, _PartialCall] = {}
        self.finish_reason: str | None = None
        self.usage: Usage | None = None
        self.model: str | None = None
        self.think = _ThinkSplitter()

    def feed(self, raw: Any) -> list[ModelChunk]:
        out: list[ModelChunk] = []
        usage = getattr(raw, "usage", None)
        if usage is not None:
            self.usage = usage_of(usage)
        self.model = getattr(raw, "model", None) or self.model
        for choice in getattr(raw, "choices", None) or []:
            if getattr(choice, "index", 0) not in (0, None):
                continue  # n > 1 is never asked for
            delta = getattr(choice, "delta", None)
            if delta is not None:
                reasoning = _extra(delta, "reasoning_content") or _extra(delta, "reasoning")
                if isinstance(reasoning, str) and reasoning:
                    out.append(ModelChunk(parts=(Part(text=reasoning, thought=True),)))
                text = getattr(delta, "content", None)
                if isinstance(text, str) and text:
                    out += [ModelChunk(parts=(part,)) for part in self.think.feed(text)]
                for fragment in getattr(delta, "tool_calls", None) or []:
                    self._add_fragment(fragment)
            reason = getattr(choice, "finish_reason", None)
            if reason:
                self.finish_reason = reason
        return out

    def _add_fragment(self, fragment: Any) -> None:
        index = getattr(fragment, "index", None)
        if not isinstance(index, int):
            index = len(self.calls)
        call = self.calls.setdefault(index, _PartialCall())
        if getattr(fragment, "id", None):
            call.id = fragment.id
        function = getattr(fragment, "function", None)
        if function is None:
            return
        name = getattr(function, "name", None)
        if name:
            # Most servers send the name once; some repeat it whole in every fragment; a few split it.
            call.name = name if not call.name or call.name == name else call.name + name
        arguments = getattr(function, "arguments", None)
        if arguments:
            call.arguments += arguments

    def finish(self) -> ModelChunk:
        """The closing chunk: assembled calls, the finish reason in Gemini's terms, the usage."""
        parts: list[Part] = self.think.flush()
        malformed = False
        for index in sorted(self.calls):
            call = self.calls[index]
            args = _parse_args(call.arguments)
            if args is None or not call.name:
                malformed = True
                log.info(
                    "the model sent a tool call that does not parse (%s, %d characters)",
                    call.name or "?",
                    len(call.arguments),
                )
                continue
            parts.append(Part(function_call=FunctionCall(name=call.name, args=args, id=call.id or None)))
        reason = self.finish_reason
        mapped = "MALFORMED_FUNCTION_CALL" if malformed else (FINISH_REASONS.get(reason, "OTHER") if reason else None)
        if mapped is None and parts:
            mapped = "STOP"  # a few servers end a tool-call stream without a finish reason
        return ModelChunk(parts=tuple(parts), finish_reason=mapped, usage=self.usage, model_version=self.model)


class _ThinkSplitter:
    """Reasoning inlined in the text as ``<think>…</think>`` (servers without a reasoning parser) becomes thought
    parts; tags split across chunks are held back until it is clear what they are."""

    OPEN, CLOSE = "<think>", "</think>"

    def __init__(self) -> None:
        self.state = "start"  # start → thinking → text, or start → text
        self.buffer = ""

    def feed(self, text: str) -> list[Part]:
        if self.state == "text":
            return [Part(text=text)]
        self.buffer += text
        if self.state == "start":
            head = self.buffer.lstrip()
            if head.startswith(self.OPEN):
                self.state, self.buffer = "thinking", head[len(self.OPEN) :]
            elif self.OPEN.startswith(head):
                return []  # maybe the start of a tag: wait for more
            else:
                self.state, out, self.buffer = "text", self.buffer, ""
                return [Part(text=out)]
        end = self.buffer.find(self.CLOSE)
        if end >= 0:
            thought, rest = self.buffer[:end], self.buffer[end + len(self.CLOSE) :].lstrip("\n")
            self.state, self.buffer = "text", ""
            return [
                p
                for p in (Part(text=thought, thought=True) if thought else None, Part(text=rest) if rest else None)
                if p
            ]
        # Keep a tail that could be the start of the closing tag; the rest is thought already.
        safe = len(self.buffer) - (len(self.CLOSE) - 1)
        if safe <= 0:
            return []
        thought, self.buffer = self.buffer[:safe], self.buffer[safe:]
        return [Part(text=thought, thought=True)]

    def flush(self) -> list[Part]:
        rest, self.buffer = self.buffer, ""
        if not rest:
            return []
        return [Part(text=rest, thought=self.state == "thinking")]


def _extra(obj: Any, name: str) -> Any:
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None)
        if isinstance(extra, dict):
            value = extra.get(name)
    return value


def _parse_args(text: str) -> dict[str, Any] | None:
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def usage_of(usage: Any) -> Usage:
    prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
    completion = int(getattr(usage, "completion_tokens", 0) or 0)
    details = getattr(usage, "completion_tokens_details", None)
    reasoning = int(getattr(details, "reasoning_tokens", 0) or 0) if details is not None else 0
    prompt_details = getattr(usage, "prompt_tokens_details", None)
    cached = int(getattr(prompt_details, "cached_tokens", 0) or 0) if prompt_details is not None else 0
    total = int(getattr(usage, "total_tokens", 0) or 0) or prompt + completion
    # Gemini counts thinking apart from the answer; OpenAI folds reasoning into completion_tokens.
    return Usage(
        prompt_tokens=prompt,
        candidates_tokens=max(0, completion - reasoning),
        thoughts_tokens=reasoning,
        cached_tokens=cached,
        total_tokens=total,
    )


def completion_to_chunk(response: Any) -> ModelChunk:
    """A non-streamed ChatCompletion as one ModelChunk."""
    assembler = StreamAssembler()
    parts: list[Part] = []
    choices = getattr(response, "choices", None) or []
    if choices:
        message = choices[0].message
        reasoning = _extra(message, "reasoning_content") or _extra(message, "reasoning")
        if isinstance(reasoning, str) and reasoning:
            parts.append(Part(text=reasoning, thought=True))
        if message.content:
            parts.append(Part(text=message.content))
        for index, call in enumerate(getattr(message, "tool_calls", None) or []):
            function = getattr(call, "function", None)
            if function is not None:
                assembler.calls[index] = _PartialCall(call.id or "", function.name or "", function.arguments or "")
        assembler.finish_reason = choices[0].finish_reason
    if getattr(response, "usage", None) is not None:
        assembler.usage = usage_of(response.usage)
    assembler.model = getattr(response, "model", None)
    last = assembler.finish()
    return ModelChunk(
        parts=(*parts, *last.parts),
        finish_reason=last.finish_reason,
        usage=last.usage,
        model_version=last.model_version,
    )


# -- errors ------------------------------------------------------------------------------------------

_TOOLS_UNSUPPORTED = re.compile(
    r"does not support tools|not support(?:ed)? (?:for )?(?:tools|function)|tool[_ ]choice|tools? (?:are|is) not "
    r"supported|tools param|--jinja|enable-auto-tool-choice|function calling",
    re.I,
)
_NO_STREAMING = re.compile(
    r"stream(?:ing)? (?:is |are )?not (?:supported|available|allowed)|does not support stream", re.I
)
_CONTEXT_OVERFLOW = re.compile(
    r"context[_ ]length|context window|maximum context|context size|too many tokens|prompt is too long|"
    r"exceeds? the (?:maximum|available) context|n_ctx|input is too long|token limit",
    re.I,
)


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return int(status) if isinstance(status, int) else None


def _body_error(exc: BaseException) -> dict[str, Any]:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        return inner if isinstance(inner, dict) else {"message": str(inner)}
    return {}


def _message(exc: BaseException) -> str:
    error = _body_error(exc)
    text = error.get("message")
    if isinstance(text, str) and text:
        return text
    return str(getattr(exc, "message", None) or exc)


def map_error(exc: BaseException, model: str, config: OpenAIConfig, *, interrupted: bool) -> ModelError | None:
    """Our ModelError for an SDK/transport failure, or None if ``exc`` is a bug that should raise."""
    import openai

    if isinstance(exc, ModelError):
        return exc
    url = config.base_url
    status: int | None = None
    retry_after: float | None = None
    if isinstance(exc, openai.APIConnectionError) and not interrupted:
        detail = _clean(str(exc.__cause__ or exc), config)
        timeout = isinstance(exc, openai.APITimeoutError)
        where = "timed out waiting for" if timeout else "could not reach"
        # Nothing listening on this machine is a server that is not running or a wrong port: say so at once
        # rather than after minutes of retries. A remote endpoint may be a passing network problem: retried.
        refused_here = not timeout and _is_local(url) and type(exc.__cause__).__name__ == "ConnectError"
        return ModelError(
            f"OpenAI-compatible endpoint: {where} {url} ({detail or type(exc).__name__}). Is the server running, "
            "and is OPENAI_BASE_URL (or settings model.baseUrl) right?",
            retryable=False if refused_here else None,
        )
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        retry_after = _retry_after(exc)
        text = _clean(_message(exc), config)
        code = str(_body_error(exc).get("code") or "")
        label = f"{url}: {status}" + (f" — {text}" if text else "")
        if status in (401, 403):
            who = f"the key from {config.key_env}" if config.key_env else "no key (set OPENAI_API_KEY)"
            return AuthError(f"{label}. The endpoint refused {who}.", status=status)
        if status == 404:
            if code == "model_not_found" or "model" in text.lower():
                return ModelError(
                    f"{url} does not serve model '{model}' ({text or 'not found'}). Pick one it offers: the "
                    "editor's model picker lists them, or set OPENAI_MODEL / settings model.name.",
                    status=status,
                    retryable=False,
                )
            return ModelError(
                f"{url}/chat/completions was not found (404). Check OPENAI_BASE_URL (or settings model.baseUrl): "
                "it usually ends in /v1.",
                status=status,
                retryable=False,
            )
        if status in (400, 413, 422) and (code == "context_length_exceeded" or _CONTEXT_OVERFLOW.search(text)):
            return ModelError(
                f"The conversation no longer fits model '{model}''s context window ({text}). Run /compress or start "
                "a new session; set settings model.contextWindow to the model's real size so agent-lsp compresses "
                "in time.",
                status=status,
                retryable=False,
            )
        if status in (400, 422) and _TOOLS_UNSUPPORTED.search(text):
            return ModelError(
                f"Model '{model}' at {url} cannot use tools ({text}). agent-lsp needs tool calling: pick a model "
                "that supports it, or turn it on in the server (vLLM: --enable-auto-tool-choice --tool-call-parser; "
                "llama.cpp: --jinja). See docs/models.md.",
                status=status,
                retryable=False,
            )
        message = f"OpenAI-compatible endpoint {label}"
        if status == 429:
            message += f" (model {model})"
    elif isinstance(exc, openai.APIError):
        # An error event inside the stream (OpenRouter and others send these with a code in the body).
        error = _body_error(exc)
        error_code = error.get("code")
        status = error_code if isinstance(error_code, int) else None
        message = f"OpenAI-compatible endpoint {url}: {_clean(_message(exc), config) or 'error in the stream'}"
    elif _is_network_error(exc) or isinstance(exc, openai.APIConnectionError):
        detail = _clean(str(exc), config)
        where = "the connection broke mid-response" if interrupted else "could not reach the server"
        message = f"OpenAI-compatible endpoint {url}: {where} ({type(exc).__name__}{': ' + detail if detail else ''})"
    elif isinstance(exc, json.JSONDecodeError):
        message = f"OpenAI-compatible endpoint {url}: the server sent a response that is not valid JSON"
    else:
        return None
    if interrupted:
        return ModelStreamInterrupted(message, status=status, retry_after=retry_after)
    return ModelError(message, status=status, retry_after=retry_after)


_TRANSPORT_MODULES = ("httpx", "httpcore", "h11", "anyio")
_NOT_NETWORK = frozenset({"InvalidURL", "UnsupportedProtocol", "CookieConflict"})


def _is_network_error(exc: BaseException) -> bool:
    if isinstance(exc, ConnectionError | TimeoutError | OSError):
        return True
    root = type(exc).__module__.split(".", 1)[0]
    return root in _TRANSPORT_MODULES and type(exc).__name__ not in _NOT_NETWORK


def _is_local(url: str) -> bool:
    from urllib.parse import urlsplit

    host = (urlsplit(url).hostname or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


def _retry_after(exc: Any) -> float | None:
    from agent_lsp.model.gemini import parse_retry_after_header

    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    return parse_retry_after_header(value) if value else None


def _clean(text: str, config: OpenAIConfig) -> str:
    """One readable line: no key, no HTML, no JSON dump, bounded length."""
    if config.api_key and len(config.api_key) >= 4:
        text = text.replace(config.api_key, "***")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    line = lines[0] if lines else ""
    if line.startswith(("<", "{", "[")):
        return ""
    line = " ".join(line.split())
    return line if len(line) <= _MAX_MESSAGE else line[: _MAX_MESSAGE - 1] + "…"
