"""The models an OpenAI-compatible endpoint offers (``GET /models``), with the context windows some servers report."""

from __future__ import annotations

from agent_lsp.errors import AuthError, ModelError
from agent_lsp.model.openai_compat.errors import clean
from agent_lsp.model.provider import OpenAIConfig


async def list_models(config: OpenAIConfig, timeout_s: float) -> tuple[list[str], dict[str, int]]:
    """(the model ids, sorted; the context windows the list reported, by id). Raises ModelError/AuthError.

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
    for entry in data:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or not entry["id"]:
            continue
        ids.add(entry["id"])
        # vLLM says max_model_len, OpenRouter context_length; most local servers say nothing.
        window = entry.get("max_model_len") or entry.get("context_length")
        if isinstance(window, int) and window > 0:
            windows[entry["id"]] = window
    return sorted(ids), windows
