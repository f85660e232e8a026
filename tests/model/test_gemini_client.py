"""GeminiClient through the real google-genai SDK against the fake server: parsing, bodies, errors."""

from __future__ import annotations

import base64
import socket

import pytest

from agent_lsp.errors import AuthError, ModelError, ModelStreamInterrupted
from agent_lsp.events import Usage
from agent_lsp.model import wire
from agent_lsp.model.auth import AuthConfig
from agent_lsp.model.base import (
    Content,
    FunctionCall,
    FunctionDeclaration,
    FunctionResponse,
    GenerateRequest,
    GroundingSource,
    InlineData,
    ModelChunk,
    Part,
)
from agent_lsp.model.gemini import GeminiClient
from agent_lsp.model.http_errors import parse_duration, parse_retry_after_header
from tests.fakes.fake_gemini import FakeGemini
from tests.model.helpers import TEST_KEY, make_request, text_chunk, text_stream

# Standard-alphabet base64 with '+' and '/', so an alphabet change would show.
SIGNATURE = base64.b64encode(bytes([250, 251, 252, 253, 254, 255]) * 4).decode()

FULL_STREAM = [
    {"candidates": [{"content": {"role": "model", "parts": [{"text": "**Planning** the read", "thought": True}]}}]},
    text_chunk("Let me look "),
    text_chunk("at it."),
    {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {
                            "functionCall": {"name": "read_file", "args": {"path": "src/a.py"}, "id": "call-7"},
                            "thoughtSignature": SIGNATURE,
                        }
                    ],
                },
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 11,
            "candidatesTokenCount": 7,
            "thoughtsTokenCount": 5,
            "cachedContentTokenCount": 2,
            "totalTokenCount": 23,
        },
        "modelVersion": "gemini-2.5-pro-001",
    },
]


async def collect(client: GeminiClient, request: GenerateRequest) -> list[ModelChunk]:
    return [chunk async for chunk in client.stream(request)]


async def test_stream_parses_thoughts_text_calls_and_usage(fake: FakeGemini, client: GeminiClient) -> None:
    fake.push(FULL_STREAM)
    chunks = await collect(client, make_request())
    assert len(chunks) == 4
    assert chunks[0].parts[0].thought and chunks[0].parts[0].text == "**Planning** the read"
    assert chunks[0].text == ""
    assert "".join(c.text for c in chunks) == "Let me look at it."
    last = chunks[-1]
    call = last.parts[0].function_call
    assert call is not None and (call.name, call.args, call.id) == ("read_file", {"path": "src/a.py"}, "call-7")
    assert last.parts[0].thought_signature == SIGNATURE
    assert last.finish_reason == "STOP"
    assert last.usage == Usage(
        prompt_tokens=11, candidates_tokens=7, thoughts_tokens=5, cached_tokens=2, total_tokens=23
    )
    assert last.model_version == "gemini-2.5-pro-001"


async def test_request_path_headers_and_body(fake: FakeGemini, client: GeminiClient) -> None:
    fake.push(text_stream("ok"))
    request = make_request(
        system_instruction="You are terse.",
        tools=(FunctionDeclaration("read_file", "Reads a file.", {"type": "object", "properties": {}}),),
        temperature=0.25,
    )
    await collect(client, request)
    (recorded,) = fake.requests
    assert recorded.path == "/v1beta/models/gemini-2.5-pro:streamGenerateContent"
    assert recorded.query == {"alt": "sse"}
    assert recorded.api_key == TEST_KEY
    assert TEST_KEY not in repr(recorded) and TEST_KEY not in repr(recorded.headers)
    body = recorded.body
    assert body["contents"] == [{"role": "user", "parts": [{"text": "hello"}]}]
    assert body["systemInstruction"]["parts"] == [{"text": "You are terse."}]
    (declaration,) = body["tools"][0]["functionDeclarations"]
    assert declaration["name"] == "read_file"
    # The SDK forwards nested fields under their Python names, which the API accepts like camelCase.
    schema = declaration.get("parametersJsonSchema", declaration.get("parameters_json_schema"))
    assert schema == {"type": "object", "properties": {}}
    config = body["generationConfig"]
    assert config["temperature"] == 0.25
    thinking = config["thinkingConfig"]
    assert thinking.get("includeThoughts", thinking.get("include_thoughts")) is True


async def test_thought_signature_and_call_id_round_trip(fake: FakeGemini, client: GeminiClient) -> None:
    fake.push(FULL_STREAM, text_stream("done"))
    chunks = await collect(client, make_request())
    call_part = chunks[-1].parts[0]
    follow_up = (
        *make_request().contents,
        Content("model", (call_part,)),
        Content("user", (Part(function_response=FunctionResponse("read_file", {"output": "x = 1"}, id="call-7")),)),
    )
    await collect(client, GenerateRequest(model="gemini-2.5-pro", contents=follow_up))
    sent = fake.requests[1].body["contents"]
    model_part = sent[1]["parts"][0]
    assert model_part["functionCall"]["id"] == "call-7"
    # The SDK may re-encode with the URL-safe alphabet; the signature bytes must be identical.
    sent_signature = model_part.get("thoughtSignature", model_part.get("thought_signature"))
    assert base64.urlsafe_b64decode(sent_signature) == base64.b64decode(SIGNATURE)
    response = sent[2]["parts"][0]["functionResponse"]
    assert response == {"name": "read_file", "response": {"output": "x = 1"}, "id": "call-7"}


async def test_inline_data_survives_both_ways(fake: FakeGemini, client: GeminiClient) -> None:
    payload = bytes([0xFB, 0xFF, 0x00, 0x3E, 0x3F]) * 3
    encoded = base64.b64encode(payload).decode()
    fake.push(
        [
            {
                "candidates": [
                    {
                        "content": {
                            "role": "model",
                            "parts": [{"inlineData": {"mimeType": "image/png", "data": encoded}}],
                        }
                    }
                ]
            }
        ]
    )
    request = GenerateRequest(
        model="gemini-2.5-flash",
        contents=(Content("user", (Part(inline_data=InlineData("image/png", payload)),)),),
    )
    (chunk,) = await collect(client, request)
    assert chunk.parts[0].inline_data == InlineData("image/png", payload)
    sent = fake.requests[0].body["contents"][0]["parts"][0]["inlineData"]
    assert base64.urlsafe_b64decode(sent["data"]) == payload


async def test_generate_merges_and_count_tokens(fake: FakeGemini, client: GeminiClient) -> None:
    fake.push(text_stream("Sum", "mary"), {"totalTokens": 42})
    chunk = await client.generate(make_request(model="gemini-2.5-flash"))
    assert chunk.text == "Summary" and chunk.finish_reason == "STOP"
    assert await client.count_tokens(make_request()) == 42
    # With nothing scripted for it, countTokens gets an estimate and leaves the script alone.
    fake.push(text_stream("later"))
    assert await client.count_tokens(make_request(text="x" * 400)) > 50
    assert fake.remaining == 1
    assert [r.action for r in fake.requests] == ["generateContent", "countTokens", "countTokens"]


async def test_whole_history_reaches_the_server_exactly_on_every_call(fake: FakeGemini, client: GeminiClient) -> None:
    # The history goes out through HttpOptions.extra_body (gemini/request.py, history_in_extra_body): this pins that
    # the SDK really sends every entry, in order, as our REST JSON, for all three calls.
    payload = bytes([0xFB, 0xFF, 0x00]) * 2
    history: list[Content] = []
    for i in range(30):
        history.append(Content("user", (Part(text=f"question {i}"),)))
        history.append(Content("model", (Part(text=f"answer {i}"),)))
    history += [
        Content("user", (Part(text="look"), Part(inline_data=InlineData("image/png", payload)))),
        Content(
            "model",
            (Part(function_call=FunctionCall("read_file", {"path": "a"}, id="c1"), thought_signature=SIGNATURE),),
        ),
        Content("user", (Part(function_response=FunctionResponse("read_file", {"output": "x"}, id="c1")),)),
        Content("model", (Part(function_call=FunctionCall("ls", {}), thought_signature="not base64!"),)),
        Content("user", (Part(function_response=FunctionResponse("ls", {"output": "a"})),)),
    ]
    request = GenerateRequest(model="gemini-2.5-pro", contents=tuple(history))
    expected = wire.request_to_json(request)["contents"]
    # A signature that is not base64 is dropped (with a warning) rather than refused by the API.
    del expected[-2]["parts"][0]["thoughtSignature"]
    fake.push(text_stream("ok"), text_stream("ok"), {"totalTokens": 7})
    await collect(client, request)
    await client.generate(request)
    assert await client.count_tokens(request) == 7
    assert [r.action for r in fake.requests] == ["streamGenerateContent", "generateContent", "countTokens"]
    for recorded in fake.requests:
        assert recorded.body["contents"] == expected
    assert expected[-4]["parts"][0]["thoughtSignature"] == SIGNATURE  # exactly as it came, standard alphabet


async def test_warm_builds_the_sdk_client_on_a_thread_and_requests_share_it(
    fake: FakeGemini, client: GeminiClient
) -> None:
    import threading

    client.warm()  # a prompt may come at once: it waits for the same build instead of making another
    fake.push(text_stream("o", "k"))
    chunks = await collect(client, make_request())
    assert "".join(c.text for c in chunks) == "ok"
    built = client._client()
    for thread in threading.enumerate():
        if thread.name == "genai-warm":
            thread.join(timeout=30)
    assert client._client() is built


async def test_error_messages_are_readable_and_carry_status(fake: FakeGemini, client: GeminiClient) -> None:
    fake.push({"status": 400, "message": "Request contains an invalid argument."})
    with pytest.raises(ModelError) as info:
        await collect(client, make_request())
    error = info.value
    assert type(error) is ModelError
    assert (error.status, error.retry_after, error.retryable) == (400, None, False)
    assert str(error) == "Gemini API: 400 INVALID_ARGUMENT — Request contains an invalid argument."


async def test_retry_hints_are_read_from_header_and_retry_info(fake: FakeGemini, client: GeminiClient) -> None:
    fake.push({"status": 429, "retry_after": 3}, {"status": 503, "retry_info": "7.5s"})
    with pytest.raises(ModelError) as first:
        await collect(client, make_request())
    assert (first.value.status, first.value.retry_after) == (429, 3.0)
    assert "429 RESOURCE_EXHAUSTED" in str(first.value) and "gemini-2.5-pro" in str(first.value)
    with pytest.raises(ModelError) as second:
        await client.generate(make_request())
    assert (second.value.status, second.value.retry_after) == (503, 7.5)


async def test_unauthorized_becomes_auth_error_without_the_key(fake: FakeGemini, client: GeminiClient) -> None:
    fake.push({"status": 403, "message": f"API key {TEST_KEY} not valid. Please pass a valid API key."})
    with pytest.raises(AuthError) as info:
        await collect(client, make_request())
    message = str(info.value)
    assert info.value.status == 403 and not info.value.retryable
    assert TEST_KEY not in message
    assert "GEMINI_API_KEY" in message


async def test_cut_stream_raises_interrupted_after_partial_chunks(fake: FakeGemini, client: GeminiClient) -> None:
    fake.push({"chunks": text_stream("one ", "two ", "three"), "cut_after": 2})
    seen: list[str] = []
    with pytest.raises(ModelStreamInterrupted) as info:
        async for chunk in client.stream(make_request()):
            seen.append(chunk.text)
    assert seen == ["one ", "two "]
    assert info.value.status is None and info.value.retryable
    assert "connection broke" in str(info.value)


async def test_unreachable_server_is_a_retryable_model_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    gemini = GeminiClient(AuthConfig(mode="api_key", api_key=TEST_KEY, base_url=f"http://127.0.0.1:{port}"))
    try:
        with pytest.raises(ModelError) as info:
            await collect(gemini, make_request())
    finally:
        await gemini.aclose()
    assert type(info.value) is ModelError
    assert info.value.status is None and info.value.retryable
    assert "could not reach" in str(info.value)


async def test_vertex_express_mode_reaches_the_fake(fake: FakeGemini) -> None:
    fake.push(text_stream("from vertex"))
    gemini = GeminiClient(AuthConfig(mode="vertex", api_key=TEST_KEY, base_url=fake.url, key_env="GOOGLE_API_KEY"))
    try:
        chunks = await collect(gemini, make_request(model="gemini-2.5-flash"))
    finally:
        await gemini.aclose()
    assert chunks[-1].text == "from vertex"
    (recorded,) = fake.requests
    assert recorded.model == "gemini-2.5-flash" and recorded.action == "streamGenerateContent"


def test_retry_delay_parsers() -> None:
    assert parse_duration("7s") == 7.0
    assert parse_duration("0.25s") == 0.25
    assert parse_duration({"seconds": 2, "nanos": 500_000_000}) == 2.5
    assert parse_duration("soon") is None
    assert parse_retry_after_header("12") == 12.0
    assert parse_retry_after_header("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a past date: do not wait
    assert parse_retry_after_header("whenever") is None


async def test_error_event_inside_the_stream_is_an_interruption(fake: FakeGemini, client: GeminiClient) -> None:
    error_event = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    fake.push([text_chunk("partial "), error_event])
    seen: list[str] = []
    with pytest.raises(ModelStreamInterrupted) as info:
        async for chunk in client.stream(make_request()):
            seen.append(chunk.text)
    assert seen == ["partial "]
    assert info.value.status == 503 and info.value.retryable
    assert str(info.value) == "Gemini API: 503 UNAVAILABLE — The model is overloaded."


async def test_vertex_without_adc_is_an_auth_error(fake: FakeGemini, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    monkeypatch.setenv("NO_GCE_CHECK", "true")  # never probe a cloud metadata server from a test
    gemini = GeminiClient(AuthConfig(mode="vertex", project="proj", location="us-central1", base_url=fake.url))
    try:
        with pytest.raises(AuthError) as info:
            await gemini.generate(make_request())
    finally:
        await gemini.aclose()
    assert "gcloud auth application-default login" in str(info.value)
    assert fake.requests == []  # the private HOME from conftest holds no gcloud credentials


async def test_json_schema_and_search_requests_are_accepted(fake: FakeGemini, client: GeminiClient) -> None:
    schema = {"type": "object", "properties": {"next_speaker": {"type": "string"}}, "required": ["next_speaker"]}
    grounded = text_chunk(
        "found it",
        finishReason="STOP",
        groundingMetadata={"groundingChunks": [{"web": {"uri": "https://example.com/a", "title": "Example"}}]},
    )
    fake.push(text_chunk('{"next_speaker": "user"}', finishReason="STOP"), grounded)
    chunk = await client.generate(make_request(model="gemini-2.5-flash", response_json_schema=schema))
    assert chunk.text == '{"next_speaker": "user"}'
    found = await client.generate(make_request(model="gemini-2.5-flash", google_search=True, include_thoughts=False))
    assert found.text == "found it"
    assert found.sources == (GroundingSource(title="Example", uri="https://example.com/a"),)
    config = fake.requests[0].body["generationConfig"]
    assert config.get("responseMimeType", config.get("response_mime_type")) == "application/json"
    assert config.get("responseJsonSchema", config.get("response_json_schema")) == schema
    search_body = fake.requests[1].body
    assert search_body["tools"] == [{"googleSearch": {}}]
    assert "thinkingConfig" not in search_body.get("generationConfig", {})
