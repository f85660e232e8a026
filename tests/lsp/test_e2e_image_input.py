"""Image and audio input per model over LSP (a real server subprocess, the fake OpenAI-compatible endpoint): the
session's description and a model switch say what the model takes (promptCapabilities: the table, the endpoint's
own description — Ollama's /api/show here — or settings), and a prompt carrying what the model does not take is
refused before anything reaches the endpoint."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from tests.fakes.fake_openai import FakeOpenAI, text_turn

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()


async def test_image_input_follows_the_model(launch: Any) -> None:
    with FakeOpenAI(models=["gpt-4o", "deepseek-chat", "house-model", "ollama-eyes"]) as fake:
        fake.ollama_show["ollama-eyes"] = {"capabilities": ["completion", "vision", "tools"]}
        fake.push(text_turn("I see a picture."), text_turn("Ollama sees it too."))
        editor = await launch(
            [],
            replay=False,
            extra_env={"OPENAI_BASE_URL": fake.url, "OPENAI_MODEL": "deepseek-chat", "OPENAI_API_KEY": "sk-img"},
        )
        described = await editor.request("agent/newSession", {"cwd": str(editor.project)})
        session = described["sessionId"]
        assert described["promptCapabilities"]["image"] is False and described["promptCapabilities"]["audio"] is False
        prompt = [{"type": "text", "text": "what is this?"}, {"type": "image", "mimeType": "image/png", "data": PNG}]
        with pytest.raises(Exception, match="deepseek-chat does not take images"):
            await editor.request("agent/prompt", {"sessionId": session, "prompt": prompt})
        assert fake.chat_requests() == []  # nothing was sent

        unknown = await editor.request("agent/setModel", {"sessionId": session, "modelId": "house-model"})
        # Neither the endpoint nor the table knows it: text only, said up front (a setting can name its inputs).
        assert unknown["promptCapabilities"]["image"] is False
        assert unknown["promptCapabilities"]["_meta"]["agent-lsp"]["source"] == "unknown"
        with pytest.raises(Exception, match=r"model\.models\.house-model\.inputs"):
            await editor.request("agent/prompt", {"sessionId": session, "prompt": prompt})
        switched = await editor.request("agent/setModel", {"sessionId": session, "modelId": "gpt-4o"})
        assert switched["promptCapabilities"]["image"] is True
        assert switched["promptCapabilities"]["_meta"]["agent-lsp"]["source"] == "table"
        sound = [{"type": "text", "text": "and this?"}, {"type": "audio", "mimeType": "audio/wav", "data": PNG}]
        with pytest.raises(Exception, match="gpt-4o does not take audio"):
            await editor.request("agent/prompt", {"sessionId": session, "prompt": sound})
        assert fake.chat_requests() == []  # still nothing sent: refused up front, never dropped after
        result = await editor.request("agent/prompt", {"sessionId": session, "prompt": prompt})
        assert result["stopReason"] == "end_turn" and "I see a picture." in editor.messages()
        (request,) = fake.chat_requests()
        assert "image_url" in str(request.body["messages"][-1])

        # Ollama says this one has vision (POST /api/show): the provider's word, not a name pattern.
        eyes = await editor.request("agent/setModel", {"sessionId": session, "modelId": "ollama-eyes"})
        assert eyes["promptCapabilities"]["image"] is True
        assert eyes["promptCapabilities"]["_meta"]["agent-lsp"]["source"] == "provider"
        result = await editor.request("agent/prompt", {"sessionId": session, "prompt": prompt})
        assert result["stopReason"] == "end_turn" and len(fake.chat_requests()) == 2
