"""Protocol errors: malformed frames, bad params, unknown methods, missing credentials and model failures are
answered with the right JSON-RPC codes and readable messages, and the agent keeps serving."""

from __future__ import annotations

from pathlib import Path

from tests.acp.harness import RawClient, agent_argv, text_turn, write_script
from tests.fakes.fake_gemini import FakeGemini


async def test_malformed_frames_and_bad_params(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path / "e.jsonl", [text_turn("still here")])
    async with RawClient.spawn(agent_argv(script), env, project) as client:
        # Garbage before initialize must not stop the fast start-up path from serving.
        await client.send(b"{this is not json\n")
        await client.wait_for(lambda: bool(client.checker.frames))
        parse = client.checker.frames[0]
        assert parse["id"] is None and parse["error"]["code"] == -32700

        init = await client.call("initialize", {"clientCapabilities": {}})
        assert init["error"]["code"] == -32602 and "protocolVersion" in init["error"]["message"]
        assert (await client.initialize())["authMethods"] == []
        # With a replay model nothing needs credentials, whichever method a client insists on.
        assert await client.result("authenticate", {"methodId": "gemini-api-key"}) == {}

        await client.send(b'{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":\n')
        await client.send(b"[1, 2, 3]\n")
        await client.wait_for(lambda: len([f for f in client.checker.frames if f.get("id") is None]) >= 3)
        errors = [f["error"]["code"] for f in client.checker.frames if f.get("id") is None]
        assert errors == [-32700, -32700, -32600]

        unknown = await client.call("session/fly", {})
        assert unknown["error"]["code"] == -32601 and "session/fly" in unknown["error"]["message"]

        no_cwd = await client.call("session/new", {"mcpServers": []})
        assert no_cwd["error"]["code"] == -32602 and "cwd" in no_cwd["error"]["message"]
        relative = await client.call("session/new", {"cwd": "project", "mcpServers": []})
        assert relative["error"]["code"] == -32602 and "absolute" in relative["error"]["message"]
        no_servers = await client.call("session/new", {"cwd": str(project)})
        assert no_servers["error"]["code"] == -32602 and "mcpServers" in no_servers["error"]["message"]
        bad_server = await client.call(
            "session/new", {"cwd": str(project), "mcpServers": [{"name": "x", "args": [], "env": []}]}
        )
        assert bad_server["error"]["code"] == -32602 and "mcpServers[0].command" in bad_server["error"]["message"]
        not_object = await client.call("session/new", [str(project)])
        assert not_object["error"]["code"] == -32602

        sid = (await client.result("session/new", {"cwd": str(project), "mcpServers": []}))["sessionId"]
        no_prompt = await client.call("session/prompt", {"sessionId": sid})
        assert no_prompt["error"]["code"] == -32602 and "prompt" in no_prompt["error"]["message"]
        bad_block = await client.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text"}]})
        assert bad_block["error"]["code"] == -32602 and "prompt[0].text" in bad_block["error"]["message"]
        bad_image = await client.call(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "image", "mimeType": "image/png", "data": "%%%"}]}
        )
        assert bad_image["error"]["code"] == -32602 and "prompt[0].data" in bad_image["error"]["message"]
        wrong_session = await client.call("session/prompt", {"sessionId": "nope", "prompt": []})
        assert wrong_session["error"]["code"] == -32002

        answer = await client.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]})
        assert answer == {"stopReason": "end_turn"}
        # The script is used up: the model error answers the prompt with a message, not a crash.
        failed = await client.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "again"}]})
        assert failed["error"]["code"] == -32603 and "no scripted response left" in failed["error"]["message"]
        assert "{" not in failed["error"]["message"]
    client.checker.assert_clean()
    assert client.proc.returncode == 0


async def test_missing_credentials_then_authenticate(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    async with RawClient.spawn(agent_argv(None, "--debug"), env, project) as client:
        init = await client.initialize()
        assert [m["id"] for m in init["authMethods"]] == ["gemini-api-key", "vertex-ai"]
        denied = await client.call("session/new", {"cwd": str(project), "mcpServers": []})
        assert denied["error"]["code"] == -32000 and "GEMINI_API_KEY" in denied["error"]["message"]

        vertex = await client.call("authenticate", {"methodId": "vertex-ai"})
        assert vertex["error"]["code"] == -32000 and "GOOGLE_CLOUD_PROJECT" in vertex["error"]["message"]
        unknown = await client.call("authenticate", {"methodId": "password"})
        assert unknown["error"]["code"] == -32602 and "methodId" in unknown["error"]["message"]
        missing = await client.call("authenticate", {"methodId": "gemini-api-key"})
        assert missing["error"]["code"] == -32000

        secret = "test-secret-key-123"
        assert await client.result("authenticate", {"methodId": "gemini-api-key", "_meta": {"apiKey": secret}}) == {}
        created = await client.result("session/new", {"cwd": str(project), "mcpServers": []})
        assert created["sessionId"]
    client.checker.assert_clean()
    assert "authenticated: API key" in client.stderr  # debug logs were on, and still no key in them
    assert secret not in client.stderr


async def test_custom_endpoint_needs_no_auth_and_model_errors_are_readable(project: Path, env: dict[str, str]) -> None:
    with FakeGemini() as fake:
        fake.push(
            [
                {
                    "candidates": [
                        {"content": {"role": "model", "parts": [{"text": "from the fake"}]}, "finishReason": "STOP"}
                    ]
                }
            ],
            {"status": 400, "message": "Model gemini-2.5-pro is not available for this key"},
            {"status": 401, "message": "API key expired"},
        )
        async with RawClient.spawn(agent_argv(None), {**env, "GOOGLE_GEMINI_BASE_URL": fake.url}, project) as client:
            init = await client.initialize()
            assert init["authMethods"] == []
            sid = (await client.result("session/new", {"cwd": str(project), "mcpServers": []}))["sessionId"]
            ok = await client.result(
                "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}, 60
            )
            assert ok == {"stopReason": "end_turn"}
            texts = [
                u["content"]["text"] for u in client.checker.updates(sid) if u["sessionUpdate"] == "agent_message_chunk"
            ]
            assert "".join(texts) == "from the fake"
            failed = await client.call(
                "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "more"}]}, 60
            )
            assert failed["error"]["code"] == -32603
            assert "not available for this key" in failed["error"]["message"]
            assert "{" not in failed["error"]["message"], failed
            # The error event says what it means (AuthError: authentication required); no status is re-read.
            refused = await client.call(
                "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "again"}]}, 60
            )
            assert refused["error"]["code"] == -32000 and "API key expired" in refused["error"]["message"]
        client.checker.assert_clean()
