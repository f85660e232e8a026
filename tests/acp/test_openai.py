"""ACP over an OpenAI-compatible endpoint: the ACP SDK's client drives `agent-lsp acp` in a subprocess whose model is
the fake OpenAI server (through the real ``openai`` SDK); every frame is schema-checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import RequestError, text_block

from tests.acp.editor import EditorClient, connect
from tests.acp.harness import agent_argv
from tests.fakes.fake_openai import FakeOpenAI, text_turn, tool_turn


async def test_multi_step_session_on_an_openai_endpoint(project: Path, env: dict[str, str]) -> None:
    with FakeOpenAI(models=["coder", "small"]) as fake:
        fake.push(
            tool_turn(("read_file", {"file_path": "src/app.py"}), text="Reading."),
            tool_turn(("replace", {"file_path": "src/app.py", "old_string": "'Hello '", "new_string": "'Hi '"})),
            {"status": 503, "message": "loading model"},
            tool_turn(("run_shell_command", {"command": "echo ran-it", "description": "check"})),
            text_turn("All ", "done.", reasoning=["**Wrapping up**"]),
            text_turn("Still here."),
        )
        agent_env = {**env, "OPENAI_BASE_URL": fake.url, "OPENAI_MODEL": "coder"}
        editor = EditorClient()
        async with connect(editor, agent_argv(None), agent_env, project) as conn:
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            model_option = next(o for o in session.config_options if o.id == "model")
            assert model_option.current_value == "coder"
            assert [o.value for o in model_option.options] == ["coder"]  # answered before the endpoint listed
            response = await conn.prompt(session_id=session.session_id, prompt=[text_block("Say hi")])
            switched = await conn.set_config_option(config_id="model", session_id=session.session_id, value="small")
            again = await conn.prompt(session_id=session.session_id, prompt=[text_block("still there?")])
        assert response.stop_reason == "end_turn" and again.stop_reason == "end_turn"
        editor.checker.assert_clean()
        assert fake.violations == []
        updates = editor.updates(session.session_id)
        kinds = [u["sessionUpdate"] for u in updates]
        assert "agent_thought_chunk" in kinds and "usage_update" in kinds
        # Right after session/new, the picker filled in with what GET /v1/models offered.
        listed = next(u for u in updates if u["sessionUpdate"] == "config_option_update")
        picker = next(o for o in listed["configOptions"] if o["id"] == "model")
        assert [o["value"] for o in picker["options"]] == ["coder", "small"]
        started = [u for u in updates if u["sessionUpdate"] == "tool_call"]
        assert [u["kind"] for u in started] == ["read", "edit", "execute"]
        assert [r["toolCall"]["kind"] for r in editor.permission_requests] == ["edit", "execute"]
        message = "".join(u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk")
        assert "All done." in message and "Still here." in message
        assert (project / "src" / "app.py").read_text() == "def greet(name):\n    return 'Hi ' + name\n"
        current = next(o for o in switched.config_options if o.id == "model").current_value
        assert current == "small"
        last = fake.chat_requests()[-1].body
        assert last["model"] == "small"
        # The conversation carried on: the second prompt's request holds the first one's calls and answers.
        assert sum(m["role"] == "tool" for m in last["messages"]) == 3
        assert "google_web_search" not in {t["function"]["name"] for t in last["tools"]}


async def test_unknown_model_fails_the_prompt_with_a_readable_error(project: Path, env: dict[str, str]) -> None:
    with FakeOpenAI(models=["coder"]) as fake:
        agent_env = {**env, "OPENAI_BASE_URL": fake.url, "OPENAI_MODEL": "missing-model"}
        editor = EditorClient()
        async with connect(editor, agent_argv(None), agent_env, project) as conn:
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            with pytest.raises(RequestError) as caught:
                await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
        editor.checker.assert_clean()
        assert "does not serve model 'missing-model'" in str(caught.value) and "{" not in str(caught.value)
        assert len(fake.chat_requests()) == 1  # not retried


async def test_an_image_to_a_text_only_model_is_refused_before_anything_is_sent(
    project: Path, env: dict[str, str]
) -> None:
    from acp import image_block

    png = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAFklEQVR4nGP8z8Dwn4GBgYGJgYGBAQAkCAICtPCuCQAAAABJRU5ErkJggg=="
    with FakeOpenAI(models=["deepseek-chat"]) as fake:
        agent_env = {**env, "OPENAI_BASE_URL": fake.url, "OPENAI_MODEL": "deepseek-chat"}
        editor = EditorClient()
        async with connect(editor, agent_argv(None), agent_env, project) as conn:
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            with pytest.raises(RequestError) as caught:
                prompt = [text_block("what is it?"), image_block(png, "image/png")]
                await conn.prompt(session_id=session.session_id, prompt=prompt)
        editor.checker.assert_clean()
        assert "deepseek-chat does not take images" in str(caught.value)
        assert fake.chat_requests() == []
