"""Gemini REST JSON ⇄ our model types. Pure functions shared by the replay and google-genai clients."""

from __future__ import annotations

import base64
from typing import Any

from agent_lsp.events import Usage
from agent_lsp.model.base import (
    Content,
    FunctionCall,
    FunctionResponse,
    GenerateRequest,
    GroundingSource,
    InlineData,
    ModelChunk,
    Part,
    Role,
)


def part_to_json(part: Part) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if part.text is not None:
        out["text"] = part.text
    if part.thought:
        out["thought"] = True
    if part.thought_signature:
        out["thoughtSignature"] = part.thought_signature
    if part.function_call is not None:
        fc: dict[str, Any] = {"name": part.function_call.name, "args": part.function_call.args}
        if part.function_call.id:
            fc["id"] = part.function_call.id
        out["functionCall"] = fc
    if part.function_response is not None:
        fr: dict[str, Any] = {"name": part.function_response.name, "response": part.function_response.response}
        if part.function_response.id:
            fr["id"] = part.function_response.id
        out["functionResponse"] = fr
    if part.inline_data is not None:
        out["inlineData"] = {
            "mimeType": part.inline_data.mime_type,
            "data": base64.b64encode(part.inline_data.data).decode("ascii"),
        }
    return out


def part_from_json(data: dict[str, Any]) -> Part:
    fc = data.get("functionCall") or data.get("function_call")
    fr = data.get("functionResponse") or data.get("function_response")
    inline = data.get("inlineData") or data.get("inline_data")
    return Part(
        text=data.get("text"),
        thought=bool(data.get("thought", False)),
        thought_signature=data.get("thoughtSignature") or data.get("thought_signature"),
        function_call=(
            FunctionCall(name=fc.get("name", ""), args=dict(fc.get("args") or {}), id=fc.get("id"))
            if fc is not None
            else None
        ),
        function_response=(
            FunctionResponse(name=fr.get("name", ""), response=dict(fr.get("response") or {}), id=fr.get("id"))
            if fr is not None
            else None
        ),
        inline_data=(
            InlineData(
                mime_type=inline.get("mimeType") or inline.get("mime_type") or "application/octet-stream",
                data=base64.b64decode(inline.get("data") or ""),
            )
            if inline is not None
            else None
        ),
    )


def content_to_json(content: Content) -> dict[str, Any]:
    return {"role": content.role, "parts": [part_to_json(p) for p in content.parts]}


def content_from_json(data: dict[str, Any]) -> Content:
    role: Role = "model" if data.get("role") == "model" else "user"
    return Content(role=role, parts=tuple(part_from_json(p) for p in data.get("parts") or []))


def usage_from_json(data: dict[str, Any] | None) -> Usage | None:
    if not data:
        return None

    def get(*names: str) -> int:
        for n in names:
            if data.get(n) is not None:
                return int(data[n])
        return 0

    return Usage(
        prompt_tokens=get("promptTokenCount", "prompt_token_count"),
        candidates_tokens=get("candidatesTokenCount", "candidates_token_count"),
        thoughts_tokens=get("thoughtsTokenCount", "thoughts_token_count"),
        cached_tokens=get("cachedContentTokenCount", "cached_content_token_count"),
        total_tokens=get("totalTokenCount", "total_token_count"),
    )


def chunk_from_json(data: dict[str, Any]) -> ModelChunk:
    """A GenerateContentResponse (camelCase REST JSON, or snake_case SDK dump) as a ModelChunk."""
    candidates = data.get("candidates") or []
    first = candidates[0] if candidates else {}
    content = first.get("content") or {}
    feedback = data.get("promptFeedback") or data.get("prompt_feedback") or {}
    grounding = first.get("groundingMetadata") or first.get("grounding_metadata") or {}
    sources = []
    for chunk in grounding.get("groundingChunks") or grounding.get("grounding_chunks") or []:
        web = chunk.get("web") or {}
        if web.get("uri"):
            sources.append(GroundingSource(title=web.get("title") or web["uri"], uri=web["uri"]))
    return ModelChunk(
        parts=tuple(part_from_json(p) for p in content.get("parts") or []),
        finish_reason=first.get("finishReason") or first.get("finish_reason"),
        usage=usage_from_json(data.get("usageMetadata") or data.get("usage_metadata")),
        block_reason=feedback.get("blockReason") or feedback.get("block_reason"),
        model_version=data.get("modelVersion") or data.get("model_version"),
        sources=tuple(sources),
    )


def request_to_json(request: GenerateRequest) -> dict[str, Any]:
    """The REST body of a generateContent request (also what the replay model records)."""
    body: dict[str, Any] = {"contents": [content_to_json(c) for c in request.contents]}
    if request.system_instruction:
        body["systemInstruction"] = {"role": "user", "parts": [{"text": request.system_instruction}]}
    tools: list[dict[str, Any]] = []
    if request.tools:
        tools.append(
            {
                "functionDeclarations": [
                    {"name": t.name, "description": t.description, "parametersJsonSchema": t.parameters}
                    for t in request.tools
                ]
            }
        )
    if request.google_search:
        tools.append({"googleSearch": {}})
    if request.url_context:
        tools.append({"urlContext": {}})
    if tools:
        body["tools"] = tools
    config: dict[str, Any] = {}
    if request.temperature is not None:
        config["temperature"] = request.temperature
    if request.top_p is not None:
        config["topP"] = request.top_p
    if request.top_k is not None:
        config["topK"] = request.top_k
    if request.include_thoughts:
        thinking: dict[str, Any] = {"includeThoughts": True}
        if request.thinking_budget is not None:
            thinking["thinkingBudget"] = request.thinking_budget
        if request.thinking_level is not None:
            thinking["thinkingLevel"] = request.thinking_level
        config["thinkingConfig"] = thinking
    if request.response_json_schema is not None:
        config["responseMimeType"] = "application/json"
        config["responseJsonSchema"] = request.response_json_schema
    if config:
        body["generationConfig"] = config
    return body
