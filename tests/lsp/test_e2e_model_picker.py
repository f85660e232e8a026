"""The Gemini model picker over LSP: opening a session does not wait on the API's model list (Gemini CLI's choices
are offered, as over ACP); switching models lists the key's own. Real server subprocess, the fake Gemini API
through the real google-genai client."""

from __future__ import annotations

from typing import Any

from agent_lsp.model.catalog import CHOICE_IDS
from tests.fakes.fake_gemini import FakeGemini


def _model(name: str) -> dict[str, Any]:
    return {"name": f"models/{name}", "displayName": name, "supportedGenerationMethods": ["generateContent"]}


def _ids(models: dict[str, Any]) -> list[str]:
    return [m["modelId"] for m in models["availableModels"]]


async def test_new_session_offers_the_built_in_choices_and_set_model_lists_the_keys_own(launch: Any) -> None:
    with FakeGemini() as fake:
        fake.models = [_model("gemini-2.5-flash"), _model("gemini-9-test")]
        env = {"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}
        editor = await launch([], replay=False, extra_env=env)
        described = await editor.request("agent/newSession", {"cwd": str(editor.project)})
        models = described["models"]
        current = models["currentModelId"]
        built_in = list(CHOICE_IDS) if current in CHOICE_IDS else [current, *CHOICE_IDS]
        assert _ids(models) == built_in  # not the key's list: the answer did not wait for it
        switched = await editor.request(
            "agent/setModel", {"sessionId": described["sessionId"], "modelId": "gemini-2.5-flash"}
        )
        assert switched["models"]["currentModelId"] == "gemini-2.5-flash"
        assert "gemini-9-test" in _ids(switched["models"])  # the key's own list, now that the user picks
