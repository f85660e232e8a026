"""OpenAIClient through the real ``openai`` SDK against the fake OpenAI-compatible server: streaming, assembly of
tool calls split across chunks, history conversion under the fake's strict checks, and every fault."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from agent_lsp import events as ev
from agent_lsp.core.retry import RetryPolicy, stream_with_retry
from agent_lsp.errors import AuthError, ModelError, ModelStreamInterrupted
from agent_lsp.model.base import (
    Content,
    FunctionCall,
    FunctionDeclaration,
    FunctionResponse,
    GenerateRequest,
    InlineData,
    ModelChunk,
    Part,
)
from agent_lsp.model.openai_compat import OpenAIClient
from agent_lsp.model.openai_compat.request import completion_params, to_json_schema, to_messages
from agent_lsp.model.provider import ModelLimits, OpenAIConfig
from tests.fakes.fake_openai import FakeOpenAI, check_chat_request, text_turn, tool_turn

SECRET = "sk-test-secret-0123456789"
READ = FunctionDeclaration(
    "read_file",
    "Reads a file.",
    {"type": "OBJECT", "properties": {"file_path": {"type": "STRING", "nullable": True}}, "required": ["file_path"]},
)


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(models=["coder", "small"]) as server:
        yield server


@pytest.fixture
async def client(fake: FakeOpenAI) -> AsyncIterator[OpenAIClient]:
    c = OpenAIClient(OpenAIConfig(base_url=fake.url, api_key=SECRET, key_env="OPENAI_API_KEY"))
    yield c
    await c.aclose()


def request(
    *contents: Content, model: str = "coder", tools: tuple[FunctionDeclaration, ...] = (READ,)
) -> GenerateRequest:
    contents = contents or (Content("user", (Part(text="hi"),)),)
    return GenerateRequest(model=model, contents=contents, system_instruction="You help.", tools=tools)


async def collect(client: OpenAIClient, req: GenerateRequest) -> list[ModelChunk]:
    return [c async for c in client.stream(req)]


async def test_text_reasoning_and_usage_stream(fake: FakeOpenAI, client: OpenAIClient) -> None:
    fake.push(text_turn("Hel", "lo.", reasoning=["**Plan** read ", "first"]))
    chunks = await collect(client, request())
    thoughts = [p.text for c in chunks for p in c.parts if p.thought]
    assert thoughts == ["**Plan** read ", "first"]
    assert "".join(c.text for c in chunks) == "Hello."
    last = chunks[-1]
    assert last.finish_reason == "STOP" and last.usage is not None
    assert (last.usage.prompt_tokens, last.usage.candidates_tokens, last.usage.total_tokens) == (40, 5, 45)
    (sent,) = fake.chat_requests()
    assert sent.body["stream"] is True and sent.body["stream_options"] == {"include_usage": True}
    assert sent.body["messages"][0] == {"role": "system", "content": "You help."}
    assert sent.api_key == SECRET
    assert fake.violations == []


async def test_tool_calls_are_assembled_from_interleaved_fragments(fake: FakeOpenAI, client: OpenAIClient) -> None:
    args_a = {"file_path": "src/app.py", "note": "a longer value, split over fragments"}
    args_b = {"dir_path": "."}
    fake.push(tool_turn(("read_file", args_a), ("list_directory", args_b), text="Looking.", pieces=5))
    chunks = await collect(client, request())
    calls = [p.function_call for c in chunks for p in c.parts if p.function_call]
    assert calls == [
        FunctionCall("read_file", args_a, "call_0_read_file"),
        FunctionCall("list_directory", args_b, "call_1_list_directory"),
    ]
    assert chunks[-1].finish_reason == "STOP"
    assert "".join(c.text for c in chunks) == "Looking."


async def test_finish_reasons_map_to_ours(fake: FakeOpenAI, client: OpenAIClient) -> None:
    fake.push(text_turn("cut", finish="length"), text_turn("no", finish="content_filter"))
    assert (await collect(client, request()))[-1].finish_reason == "MAX_TOKENS"
    assert (await collect(client, request()))[-1].finish_reason == "SAFETY"


async def test_broken_arguments_are_a_malformed_call(fake: FakeOpenAI, client: OpenAIClient) -> None:
    turn = tool_turn(("read_file", {"file_path": "a"}))
    for chunk in turn:
        for choice in chunk.get("choices", []):
            for frag in choice["delta"].get("tool_calls", []):
                if frag["function"].get("arguments"):
                    frag["function"]["arguments"] = frag["function"]["arguments"].replace('"', "'")
    fake.push(turn)
    last = (await collect(client, request()))[-1]
    assert last.finish_reason == "MALFORMED_FUNCTION_CALL" and not last.parts


def gemini_history() -> tuple[Content, ...]:
    """A history as the core keeps it: Gemini-style calls without ids, thoughts, signatures, parallel calls."""
    return (
        Content("user", (Part(text="read both"),)),
        Content(
            "model",
            (
                Part(text="**Thinking** about it", thought=True),
                Part(text="", thought_signature="c2ln"),
                Part(text="Reading."),
                Part(function_call=FunctionCall("read_file", {"file_path": "a"})),
                Part(function_call=FunctionCall("read_file", {"file_path": "b"})),
            ),
        ),
        Content(
            "user",
            (
                Part(function_response=FunctionResponse("read_file", {"output": "A"})),
                Part(function_response=FunctionResponse("read_file", {"error": "no such file"})),
                Part(inline_data=InlineData("image/png", b"\x89PNG")),
            ),
        ),
        Content("model", (Part(text="Done."),)),
        Content("user", (Part(text="thanks"),)),
    )


def test_history_converts_to_valid_messages() -> None:
    messages = to_messages(request(*gemini_history()))
    assert check_chat_request({"model": "m", "messages": messages}) == []
    assistant = messages[2]
    assert assistant["content"] == "Reading."  # the thought is not sent back
    ids = [c["id"] for c in assistant["tool_calls"]]
    assert len(set(ids)) == 2
    assert [m["tool_call_id"] for m in messages[3:5]] == ids
    assert messages[3]["content"] == "A" and messages[4]["content"] == "Error: no such file"
    assert messages[5]["content"][0]["image_url"]["url"].startswith("data:image/png;base64,")
    assert "Thinking" not in json.dumps(messages)


async def test_whole_history_reaches_the_server_exactly_on_every_call(fake: FakeOpenAI, client: OpenAIClient) -> None:
    # The messages go out through the SDK's extra_body (openai_compat/request.py, history_in_extra_body): this pins
    # that the server receives every message, in order, exactly as converted, and every other field as before.
    contents = list(gemini_history())
    for i in range(30):
        contents += [Content("model", (Part(text=f"answer {i} ünï ✓"),)), Content("user", (Part(text=f"q {i}"),))]
    req = request(*contents)
    fake.push(text_turn("ok"), text_turn("ok"))
    await collect(client, req)
    await client.generate(req)
    stream, whole = fake.chat_requests()
    expected = completion_params(req, client.config, stream=True)
    assert stream.body == json.loads(json.dumps(expected))
    assert len(stream.body["messages"]) > 60
    expected = completion_params(req, client.config, stream=False)
    assert whole.body == json.loads(json.dumps(expected))
    assert fake.violations == []


async def test_one_connection_serves_every_request(fake: FakeOpenAI, client: OpenAIClient) -> None:
    # The SDK stops reading at [DONE], before the body's end; the client reads the rest so httpx keeps the
    # connection (openai_compat/keepalive.py). Without that, every turn opened a new one.
    for _ in range(3):
        fake.push(text_turn("Hel", "lo."))
        assert "".join(c.text for c in await collect(client, request())) == "Hello."
    fake.push(text_turn("whole"))
    assert (await client.generate(request())).text == "whole"
    assert fake.connections == 1


async def test_a_stream_closed_early_is_not_read_to_its_end(fake: FakeOpenAI, client: OpenAIClient) -> None:
    fake.push(text_turn("warm"))
    await collect(client, request())
    # A slow answer the user stops after its first words: closed at once, the connection given up.
    fake.push({"chunks": text_turn(*["word "] * 50), "delay_s": 0.1})
    stream = client.stream(request())
    async for chunk in stream:
        assert chunk.text == "word "
        break
    await stream.aclose()  # type: ignore[attr-defined]
    fake.push(text_turn("next"))
    assert "".join(c.text for c in await collect(client, request())) == "next"
    assert fake.connections == 2


def test_unanswered_calls_are_answered_so_the_chat_stays_valid() -> None:
    contents = (
        Content("user", (Part(text="go"),)),
        Content(
            "model",
            (Part(function_call=FunctionCall("ls", {}, "x1")), Part(function_call=FunctionCall("ls", {}, "x2"))),
        ),
        Content("user", (Part(function_response=FunctionResponse("ls", {"output": "two"}, "x2")),)),
        Content("user", (Part(text="and now?"),)),
    )
    messages = to_messages(request(*contents))
    assert check_chat_request({"model": "m", "messages": messages}) == []
    assert [m.get("tool_call_id") for m in messages if m["role"] == "tool"] == ["x1", "x2"]


def test_ids_reused_by_the_server_are_made_unique() -> None:
    turn = (
        Content("model", (Part(function_call=FunctionCall("ls", {}, "call_0")),)),
        Content("user", (Part(function_response=FunctionResponse("ls", {"output": "x"}, "call_0")),)),
    )
    messages = to_messages(request(Content("user", (Part(text="go"),)), *turn, *turn))
    assert check_chat_request({"model": "m", "messages": messages}) == []
    assert [m["tool_call_id"] for m in messages if m["role"] == "tool"] == ["call_0", "call_0_2"]


def test_gemini_schemas_become_json_schema() -> None:
    schema = to_json_schema(
        {
            "type": "OBJECT",
            "properties": {
                "n": {"type": "INTEGER", "nullable": True},
                "l": {"type": "ARRAY", "items": {"type": "STRING"}},
            },
            "propertyOrdering": ["n"],
        }
    )
    assert schema == {
        "type": "object",
        "properties": {"n": {"type": ["integer", "null"]}, "l": {"type": "array", "items": {"type": "string"}}},
    }


async def test_whole_history_round_trips_through_the_strict_fake(fake: FakeOpenAI, client: OpenAIClient) -> None:
    fake.push(text_turn("ok"))
    await collect(client, request(*gemini_history()))
    assert fake.violations == []
    tools = fake.chat_requests()[0].body["tools"]
    assert tools[0]["function"]["parameters"]["properties"]["file_path"]["type"] == ["string", "null"]


async def test_retry_after_and_5xx_go_through_the_retry_policy(fake: FakeOpenAI, client: OpenAIClient) -> None:
    fake.push({"status": 429, "retry_after": 7}, {"status": 500, "message": "overloaded"}, text_turn("fine"))
    slept: list[float] = []

    async def sleep(delay: float) -> None:
        slept.append(delay)

    items = [i async for i in stream_with_retry(client, request(), RetryPolicy(initial_delay_s=0.5), sleep=sleep)]
    retries = [i for i in items if isinstance(i, ev.Retry)]
    assert len(retries) == 2 and slept[0] == 7.0
    assert "429" in retries[0].reason and "overloaded" in retries[1].reason
    assert "".join(i.text for i in items if isinstance(i, ModelChunk)) == "fine"
    assert not any(isinstance(i, ev.ModelFallback) for i in items)


async def test_a_stream_cut_midway_is_restarted(fake: FakeOpenAI, client: OpenAIClient) -> None:
    fake.push({"chunks": text_turn("partial ", "never"), "cut_after": 3})
    with pytest.raises(ModelStreamInterrupted):
        await collect(client, request())
    fake.push({"chunks": text_turn("partial ", "never"), "cut_after": 3}, text_turn("whole"))
    items = [i async for i in stream_with_retry(client, request(), sleep=_no_sleep)]
    kinds = ["retry" if isinstance(i, ev.Retry) else "chunk" for i in items]
    assert kinds.index("retry") > 0  # partial output came first, then was voided
    assert items[-1].finish_reason == "STOP"  # type: ignore[union-attr]


async def _no_sleep(_delay: float) -> None:
    return None


@pytest.mark.parametrize(
    ("entry", "needle"),
    [
        ({"status": 400, "message": "registry.ollama.ai/library/gemma:2b does not support tools"}, "cannot use tools"),
        (
            {"status": 400, "message": '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser'},
            "cannot use tools",
        ),
        (
            {
                "status": 400,
                "code": "context_length_exceeded",
                "message": "This model's maximum context length is 8192",
            },
            "context window",
        ),
        ({"status": 400, "message": "the request exceeds the available context size, try increasing it"}, "/compress"),
    ],
)
async def test_clear_errors_for_unsupported_tools_and_overflow(
    fake: FakeOpenAI, client: OpenAIClient, entry: dict[str, Any], needle: str
) -> None:
    fake.push(entry)
    with pytest.raises(ModelError) as caught:
        await collect(client, request())
    assert needle in str(caught.value) and not caught.value.retryable
    assert "{" not in str(caught.value)


async def test_unknown_model_names_the_model_and_is_not_retried(fake: FakeOpenAI, client: OpenAIClient) -> None:
    with pytest.raises(ModelError) as caught:
        await collect(client, request(model="qwen-missing"))
    assert "does not serve model 'qwen-missing'" in str(caught.value) and not caught.value.retryable


async def test_wrong_base_url_says_to_check_it(fake: FakeOpenAI) -> None:
    client = OpenAIClient(OpenAIConfig(base_url=fake.url.removesuffix("/v1"), api_key=SECRET))
    with pytest.raises(ModelError) as caught:
        await collect(client, request())
    assert "OPENAI_BASE_URL" in str(caught.value) and "/v1" in str(caught.value)
    refused = OpenAIClient(OpenAIConfig(base_url="http://127.0.0.1:9/v1", api_key=SECRET))
    with pytest.raises(ModelError) as caught:
        await collect(refused, request())
    # Nothing listening on this machine: said at once, not after minutes of retries.
    assert "could not reach http://127.0.0.1:9/v1" in str(caught.value) and not caught.value.retryable
    await client.aclose()
    await refused.aclose()


async def test_refused_key_is_an_auth_error_without_the_key(fake: FakeOpenAI, client: OpenAIClient) -> None:
    fake.push({"status": 401, "message": f"Incorrect API key provided: {SECRET}"})
    with pytest.raises(AuthError) as caught:
        await collect(client, request())
    assert SECRET not in str(caught.value) and "OPENAI_API_KEY" in str(caught.value)
    assert SECRET not in repr(client) and SECRET not in repr(client.config)


async def test_models_list_and_non_streamed_generate(fake: FakeOpenAI, client: OpenAIClient) -> None:
    assert await client.list_models() == ["coder", "small"]
    fake.push(tool_turn(("read_file", {"file_path": "x"}), text="One call."))
    chunk = await client.generate(request())
    assert chunk.text == "One call." and chunk.parts[-1].function_call == FunctionCall(
        "read_file", {"file_path": "x"}, "call_0_read_file"
    )
    assert fake.chat_requests()[-1].body.get("stream") is None


async def test_max_output_tokens_come_from_the_limits(fake: FakeOpenAI) -> None:
    config = OpenAIConfig(base_url=fake.url, limits={"coder": ModelLimits(32768, 2048)})
    client = OpenAIClient(config)
    fake.push(text_turn("x"))
    await collect(client, request())
    assert fake.chat_requests()[-1].body["max_tokens"] == 2048
    assert client.context_window("coder") == 32768
    await client.aclose()


async def test_endpoint_without_stream_options_still_streams(fake: FakeOpenAI, client: OpenAIClient) -> None:
    fake.require_usage = False
    fake.push({"status": 400, "message": "Unrecognized request argument supplied: stream_options"}, text_turn("ok"))
    chunks = await collect(client, request())
    assert "".join(c.text for c in chunks) == "ok"
    first, second = fake.chat_requests()
    assert "stream_options" in first.body and "stream_options" not in second.body


async def test_endpoint_without_streaming_gets_whole_answers(fake: FakeOpenAI, client: OpenAIClient) -> None:
    fake.push({"status": 400, "message": "Streaming is not supported for this model"}, text_turn("whole"))
    fake.push(text_turn("again"))
    assert "".join(c.text for c in await collect(client, request())) == "whole"
    assert "".join(c.text for c in await collect(client, request())) == "again"
    first, second, third = fake.chat_requests()
    assert first.body["stream"] is True and "stream" not in second.body and "stream" not in third.body


async def test_inline_think_tags_become_thoughts(fake: FakeOpenAI, client: OpenAIClient) -> None:
    fake.push(
        text_turn("<thi", "nk>**Plan** read", " the file</th", "ink>\n\nIt ", "says hi."), text_turn("<", "b>bold</b>")
    )
    chunks = await collect(client, request())
    assert "".join(p.text or "" for c in chunks for p in c.parts if p.thought) == "**Plan** read the file"
    assert "".join(c.text for c in chunks) == "It says hi."
    plain = await collect(client, request())
    assert "".join(c.text for c in plain) == "<b>bold</b>" and not any(p.thought for c in plain for p in c.parts)


async def test_context_window_from_the_model_list_unless_settings_say(fake: FakeOpenAI) -> None:
    fake.windows = {"coder": 32768, "small": 8192}
    config = OpenAIConfig(base_url=fake.url, default_limits=ModelLimits(65536), limits={"small": ModelLimits(4096)})
    client = OpenAIClient(config)
    assert client.context_window("coder") == 65536  # nothing listed yet: the settings' default
    await client.list_models()
    assert client.context_window("coder") == 32768  # the endpoint said
    assert client.context_window("small") == 4096  # settings for this model win
    assert client.context_window("other") == 65536
    await client.aclose()
