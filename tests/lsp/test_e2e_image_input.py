"""Image input per model over LSP (a real server subprocess): the session's description and a model switch say
whether the model reads images (promptCapabilities.image, from the model catalog), and a prompt with an image to a
model that reads text only is refused before anything reaches the endpoint."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from tests.fakes.fake_openai import FakeOpenAI, text_turn

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()


async def test_image_input_follows_the_model(launch: Any) -> None:
    with FakeOpenAI(models=["gpt-4o", "deepseek-chat", "house-model"]) as fake:
        fake.push(text_turn("I see a picture."))
        editor = await launch(
            [],
            replay=False,
            extra_env={"OPENAI_BASE_URL": fake.url, "OPENAI_MODEL": "deepseek-chat", "OPENAI_API_KEY": "sk-img"},
        )
        described = await editor.request("agent/newSession", {"cwd": str(editor.project)})
        session = described["sessionId"]
        assert described["promptCapabilities"] == {"image": False}
        prompt = [{"type": "text", "text": "what is this?"}, {"type": "image", "mimeType": "image/png", "data": PNG}]
        with pytest.raises(Exception, match="deepseek-chat does not take images"):
            await editor.request("agent/prompt", {"sessionId": session, "prompt": prompt})
        assert fake.chat_requests() == []  # nothing was sent

        unknown = await editor.request("agent/setModel", {"sessionId": session, "modelId": "house-model"})
        assert unknown["promptCapabilities"] == {}  # not known: the editor lets it go, the endpoint answers
        switched = await editor.request("agent/setModel", {"sessionId": session, "modelId": "gpt-4o"})
        assert switched["promptCapabilities"] == {"image": True}
        result = await editor.request("agent/prompt", {"sessionId": session, "prompt": prompt})
        assert result["stopReason"] == "end_turn" and "I see a picture." in editor.messages()
        (request,) = fake.chat_requests()
        assert "image_url" in str(request.body["messages"][-1])
