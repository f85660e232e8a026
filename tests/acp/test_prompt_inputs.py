"""What a model takes besides text, over ACP (the ACP SDK's client, the agent in a subprocess, the fake OpenAI
endpoint): ``initialize`` advertises what the default model takes, each session says its own in ``_meta`` (its
answer from the table, then a ``session_info_update`` once settings and the endpoint are read, and again after a
model switch), and audio a model does not take is refused before any request; every frame is schema-checked."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block
from acp.schema import AudioContentBlock

from tests.acp.editor import EditorClient, connect
from tests.acp.harness import agent_argv
from tests.fakes.fake_openai import FakeOpenAI, text_turn

WAV = base64.b64encode(b"RIFF\0\0\0\0WAVEfmt ").decode()


def _inputs(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        u["_meta"]["agent-lsp"]["promptCapabilities"]
        for u in updates
        if u["sessionUpdate"] == "session_info_update" and "_meta" in u
    ]


async def test_initialize_and_sessions_say_what_the_model_takes(project: Path, env: dict[str, str]) -> None:
    # The default environment: Gemini, which takes images, audio and PDF.
    gemini = EditorClient()
    async with connect(gemini, agent_argv(None), {**env, "GEMINI_API_KEY": "k"}, project):
        caps = gemini.initialized.agent_capabilities.prompt_capabilities
        assert caps.image is True and caps.audio is True and caps.embedded_context is True

    with FakeOpenAI(models=["deepseek-chat", "gpt-4o-audio-preview", "hearing"]) as fake:
        fake.ollama_show["hearing"] = {"capabilities": ["completion", "audio"]}
        fake.push(text_turn("I hear it."))
        editor = EditorClient()
        agent_env = {**env, "OPENAI_BASE_URL": fake.url, "OPENAI_MODEL": "deepseek-chat"}
        async with connect(editor, agent_argv(None), agent_env, project) as conn:
            caps = editor.initialized.agent_capabilities.prompt_capabilities
            assert caps.image is False and caps.audio is False  # deepseek-chat reads text only
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            sid = session.session_id
            assert session.field_meta["agent-lsp"]["promptCapabilities"]["audio"] is False
            sound = [text_block("what is this?"), AudioContentBlock(type="audio", mime_type="audio/wav", data=WAV)]
            with pytest.raises(RequestError, match="deepseek-chat does not take audio"):
                await conn.prompt(session_id=sid, prompt=sound)
            assert fake.chat_requests() == []  # refused up front, not dropped after

            switched = await conn.set_config_option(config_id="model", session_id=sid, value="hearing")
            assert switched.field_meta["agent-lsp"]["promptCapabilities"]["audio"] is True  # Ollama says so
            answer = await conn.prompt(session_id=sid, prompt=sound)
            assert answer.stop_reason == "end_turn"
        (request,) = fake.chat_requests()
        parts = request.body["messages"][-1]["content"]
        assert {"type": "input_audio", "input_audio": {"data": WAV, "format": "wav"}} in parts
        said = _inputs(editor.updates(sid))
        assert said[0]["audio"] is False and said[-1]["audio"] is True  # once built, then after the switch
        assert said[-1]["_meta"]["agent-lsp"]["source"] == "provider"
