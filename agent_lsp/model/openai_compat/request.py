"""Our neutral request as Chat Completions parameters: messages (tool calls answered in order), tools as JSON Schema."""

from __future__ import annotations

import base64
import json
from typing import Any

from agent_lsp.model.base import FunctionDeclaration, GenerateRequest, Part
from agent_lsp.model.inputs import OPENAI_AUDIO
from agent_lsp.model.provider import OpenAIConfig


def completion_params(
    request: GenerateRequest, config: OpenAIConfig, *, stream: bool, usage: bool = True
) -> dict[str, Any]:
    """``chat.completions.create`` keyword arguments for ``request``; ``usage`` asks a stream for its token counts
    (``stream_options``, which some older servers refuse)."""
    params: dict[str, Any] = {"model": request.model, "messages": to_messages(request)}
    if request.tools:
        params["tools"] = to_tools(request.tools)
    if request.temperature is not None:
        params["temperature"] = request.temperature
    limit = config.limits_for(request.model).max_output_tokens
    if limit:
        params["max_tokens"] = limit
    if request.response_json_schema is not None:
        params["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "response", "schema": request.response_json_schema},
        }
    if stream:
        params["stream"] = True
        if usage:
            params["stream_options"] = {"include_usage": True}
    return params


def history_in_extra_body(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with the messages riding in ``extra_body``, the SDK's own ``messages`` argument the newest only.

    The openai SDK walks every message through its TypedDict transform on each request (about 0.13 ms per
    message here: a call at 400 messages spent ~55 ms there, 17x the floor of sending the same body). The
    transform changes nothing in our messages (plain JSON, no aliased or formatted fields), and
    ``extra_body``, the SDK's documented per-request option, is merged into the JSON body after it, replacing
    ``messages`` in place, so the body is byte for byte the same at the cost of one ``json.dumps``.
    tests/model/test_openai_client.py checks that the server receives every message exactly.
    """
    messages = params["messages"]
    return {**params, "messages": messages[-1:], "extra_body": {"messages": messages}}


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
    data = base64.b64encode(part.inline_data.data).decode("ascii")
    if mime in OPENAI_AUDIO:
        # Chat Completions' input_audio (wav or mp3); a prompt to a model that takes no audio never gets here
        # (model/inputs.py refuses it first).
        return {"type": "input_audio", "input_audio": {"data": data, "format": "mp3" if "mp" in mime else "wav"}}
    if mime == "application/pdf":
        return {"type": "file", "file": {"filename": "document.pdf", "file_data": f"data:{mime};base64,{data}"}}
    # A tool's result of another kind (a video, an .ogg): Chat Completions has no part for it.
    return {"type": "text", "text": f"[an attachment of type {mime} was left out: Chat Completions cannot carry it]"}


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
