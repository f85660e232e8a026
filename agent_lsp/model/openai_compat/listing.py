"""The models an OpenAI-compatible endpoint offers (``GET /models``), with the context windows and the inputs (images,
audio, PDF) some servers report; and one model's description from Ollama or LM Studio, which say more elsewhere."""

from __future__ import annotations

from typing import Any

from agent_lsp.errors import AuthError, ModelError
from agent_lsp.model.inputs import ModelInputs, from_description
from agent_lsp.model.openai_compat.errors import clean
from agent_lsp.model.provider import OpenAIConfig

Listed = tuple[list[str], dict[str, int], dict[str, ModelInputs]]


async def list_models(config: OpenAIConfig, timeout_s: float) -> Listed:
    """(the model ids, sorted; the context windows and the inputs the list reported, by id). Raises
    ModelError/AuthError.

    One plain GET through httpx rather than the SDK: a model picker must not wait the second or so that
    importing ``openai`` takes, and this is all the listing needs."""
    # Imported here: httpx is only needed once a picker asks, not at start-up.
    import httpx

    url = f"{config.base_url}/models"
    headers = {"Authorization": f"Bearer {config.api_key}", "Accept": "application/json"}
    try:
        async with httpx.AsyncClient(timeout=timeout_s) as http:
            response = await http.get(url, headers=headers)
    except httpx.HTTPError as exc:
        detail = clean(str(exc), config) or type(exc).__name__
        raise ModelError(f"Could not list the models of {config.base_url} ({detail}).") from exc
    if response.status_code in (401, 403):
        raise AuthError(f"{url}: {response.status_code}. The endpoint refused the key.", status=response.status_code)
    if response.status_code >= 400:
        raise ModelError(f"{url}: {response.status_code}", status=response.status_code)
    try:
        data = response.json().get("data") or []
    except (ValueError, AttributeError) as exc:
        raise ModelError(f"{url} did not answer with a model list") from exc
    ids: set[str] = set()
    windows: dict[str, int] = {}
    inputs: dict[str, ModelInputs] = {}
    for entry in data:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or not entry["id"]:
            continue
        ids.add(entry["id"])
        # vLLM says max_model_len, OpenRouter context_length; most local servers say nothing.
        window = entry.get("max_model_len") or entry.get("context_length")
        if isinstance(window, int) and window > 0:
            windows[entry["id"]] = window
        said = from_description(entry)  # OpenRouter's architecture, LM Studio's type, a capabilities list
        if said is not None:
            inputs[entry["id"]] = said
    return sorted(ids), windows, inputs


async def describe_model(config: OpenAIConfig, model: str, timeout_s: float) -> ModelInputs | None:
    """What the endpoint says ``model`` takes, or None when it does not say (or does not answer): its entry in
    ``GET /models``, else LM Studio's ``GET /api/v0/models/<id>`` (``type``), else Ollama's ``POST /api/show``
    (``capabilities``). Never raises: an endpoint that says nothing leaves the table to decide."""
    import httpx

    root = config.base_url.removesuffix("/").removesuffix("/v1")
    headers = {"Authorization": f"Bearer {config.api_key}", "Accept": "application/json"}
    try:
        _ids, _windows, listed = await list_models(config, timeout_s)
    except (ModelError, AuthError):
        listed = {}
    if model in listed:
        return listed[model]
    probes: list[tuple[str, str, Any]] = [("GET", f"{root}/api/v0/models/{model}", None)]
    probes.append(("POST", f"{root}/api/show", {"model": model}))
    async with httpx.AsyncClient(timeout=timeout_s) as http:
        for method, url, body in probes:
            try:
                response = await http.request(method, url, headers=headers, json=body)
                entry = response.json() if response.status_code == 200 else None
            except (httpx.HTTPError, ValueError):
                continue
            said = from_description(entry) if isinstance(entry, dict) else None
            if said is not None:
                return said
    return None
