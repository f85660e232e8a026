"""Our GenerateRequest as google-genai's (contents, config), the history riding in ``HttpOptions.extra_body``."""

from __future__ import annotations

import base64
import dataclasses
from typing import Any

from agent_lsp.model import wire
from agent_lsp.model.base import GenerateRequest
from agent_lsp.model.gemini.history import WireCache, b64_bytes


def sdk_request(request: GenerateRequest, wired: WireCache) -> tuple[list[dict[str, Any]], Any]:
    """The SDK's (contents, config) for ``request``, built from the one REST codec.

    The history travels in the request body as our REST JSON through ``HttpOptions.extra_body``; the SDK's own
    ``contents`` argument gets only the newest entry (see :func:`history_in_extra_body` for why).
    """
    # Imported here, not at the top: importing this package must not load the SDK (start-up budget).
    from google.genai import types

    body = wire.request_to_json(dataclasses.replace(request, contents=()))
    contents = wired.contents(request.contents)
    config: dict[str, Any] = dict(body.get("generationConfig") or {})
    if "systemInstruction" in body:
        config["systemInstruction"] = body["systemInstruction"]
    if "tools" in body:
        config["tools"] = body["tools"]
    # The SDK would send thinkingConfig and tool schemas with snake_case keys and topK as a float; send them
    # as Gemini CLI does (camelCase, an integer) by merging them into the request body ourselves.
    extra: dict[str, Any] = {}
    generation = {k: config.pop(k) for k in ("topK", "thinkingConfig") if k in config}
    if generation:
        extra["generationConfig"] = generation
    if "tools" in config:
        # Likewise the declarations: "parametersJsonSchema", as Gemini CLI sends them.
        extra["tools"] = config.pop("tools")
    # Our tools are declarations the core runs itself, and retries are ours: keep the SDK out of both.
    config["automatic_function_calling"] = {"disable": True}
    config["automatic_continuation"] = False
    sdk_contents, http_options = history_in_extra_body(contents)
    http_options["extra_body"].update(extra)
    # Handed over as a dict, not a GenerateContentConfig: the SDK deep-copies a config model on every call
    # (``model_copy(deep=True)``), which with the history in ``extra_body`` made each turn linear in the
    # history (~1,000 deepcopy calls a turn at prompt 20). A dict is validated instead, and the
    # HttpOptions instance inside it is taken as is (pydantic does not revalidate instances).
    config["http_options"] = types.HttpOptions(**http_options)
    return sdk_contents, config


def history_in_extra_body(contents: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(the SDK's ``contents`` argument, per-request ``http_options``) carrying the whole history.

    A deliberate departure from the SDK's usual path, kept because users feel it: google-genai re-validates
    every history entry into pydantic ``Content``/``Part`` models and converts them back field by field on
    each request (about 1 ms per entry here), so a turn at prompt 200 cost ~0.3–0.6 s in the SDK alone
    (bench/long_session.py). ``HttpOptions.extra_body`` is the SDK's documented per-request option whose
    keys are merged into the REST body, replacing a list wholesale, so the full ``contents`` goes out as
    the REST JSON we already built (what the replay model records too) at the cost of one ``json.dumps``.
    The SDK still validates the newest entry as its own ``contents`` argument (it requires one), and
    tests/model/test_gemini_client.py checks that the server receives the whole history exactly.
    """
    return [sdk_content(contents[-1])] if contents else [], {"extra_body": {"contents": contents}}


def sdk_content(content: dict[str, Any]) -> dict[str, Any]:
    """A REST content in the shape the SDK's ``Content`` validates: signatures and inline data as bytes."""
    parts = []
    for part in content.get("parts") or []:
        part = dict(part)
        signature = part.pop("thoughtSignature", None)
        if signature is not None:
            raw = b64_bytes(signature)
            if raw is not None:
                # The SDK types the signature as bytes and base64-encodes it on the wire itself.
                part["thoughtSignature"] = raw
        inline = part.get("inlineData")
        if inline is not None:
            part["inlineData"] = {"mimeType": inline["mimeType"], "data": base64.b64decode(inline["data"])}
        parts.append(part)
    return {"role": content["role"], "parts": parts}
