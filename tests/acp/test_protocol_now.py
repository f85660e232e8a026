"""ACP as clients speak it now, over raw frames (each checked against the pinned schema, the unstable one for the
unstable parts) with the fake Gemini server behind the agent: message ids live and replayed, a compaction
lifecycle for clients that draw it, steering a running turn, subagents as child sessions, a client's system
prompt."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.acp.harness import RawClient, agent_argv
from tests.fakes.fake_gemini import FakeGemini
from tests.replay_lines import call_line, text_line


def _new(project: Path, **more: Any) -> dict[str, Any]:
    return {"cwd": str(project), "mcpServers": [], **more}


def _prompt(sid: str, text: str) -> dict[str, Any]:
    return {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}


def _chunk(text: str, *, thought: bool = False, finish: bool = False, tokens: int = 20) -> dict[str, Any]:
    part: dict[str, Any] = {"text": text, **({"thought": True} if thought else {})}
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [part]}}
    out: dict[str, Any] = {"candidates": [candidate]}
    if finish:
        candidate["finishReason"] = "STOP"
        out["usageMetadata"] = {"promptTokenCount": tokens, "candidatesTokenCount": 5, "totalTokenCount": tokens + 5}
    return out


def _summary(text: str) -> dict[str, Any]:
    return {
        "method": "generateContent",
        "response": {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}]},
    }


def _chunks(updates: list[dict[str, Any]], kind: str) -> list[tuple[str, str | None]]:
    return [(u["content"]["text"], u.get("messageId")) for u in updates if u["sessionUpdate"] == kind]


def _messages(chunks: list[tuple[str, str | None]]) -> list[tuple[str | None, str]]:
    """Chunks joined per message id, in order (the recording keeps one record per message, the same id)."""
    out: list[tuple[str | None, str]] = []
    for text, message_id in chunks:
        if out and out[-1][0] == message_id:
            out[-1] = (message_id, out[-1][1] + text)
        else:
            out.append((message_id, text))
    return out


def _env(env: dict[str, str], fake: FakeGemini) -> dict[str, str]:
    return {**env, "GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}


async def test_message_ids_and_a_compaction_live_and_in_the_replay(project: Path, env: dict[str, str]) -> None:
    long = " ".join(f"word{i}" for i in range(300))  # varied: repeated text would trip loop detection
    with FakeGemini() as fake:
        fake.push(
            [_chunk("**Looking** at it", thought=True), _chunk("Hello "), _chunk("world", finish=True, tokens=5000)],
            [_chunk("Second " + long), _chunk("answer", finish=True, tokens=6000)],
            _summary("<state_snapshot>we said hello</state_snapshot>"),
        )
        caps = {"session": {"compaction": {}}}
        async with RawClient.spawn(agent_argv(None), _env(env, fake), project) as client:
            await client.initialize(caps)
            sid = (await client.result("session/new", _new(project)))["sessionId"]
            await client.result("session/prompt", _prompt(sid, "hello " + long))
            await client.result("session/prompt", _prompt(sid, "again " + long))
            await client.result("session/prompt", _prompt(sid, "/compress"))
            live = client.checker.updates(sid)
        client.checker.assert_clean()

        agent = _chunks(live, "agent_message_chunk")
        thought = _chunks(live, "agent_thought_chunk")
        assert [t for t, _ in agent[:2]] == ["Hello ", "world"]
        assert agent[0][1] and agent[0][1] == agent[1][1]  # every chunk of a message carries its one id
        assert agent[2][1] != agent[0][1]  # the next answer is a new message
        assert thought[0][1] and thought[0][1] != agent[0][1]
        steps = [u for u in live if u["sessionUpdate"] == "compaction_update"]
        assert [s["status"] for s in steps] == ["in_progress", "completed"]
        assert steps[0]["compactionId"] == steps[1]["compactionId"]
        done = steps[1]
        assert done["summary"] == [{"type": "text", "text": "<state_snapshot>we said hello</state_snapshot>"}]
        ours = done["_meta"]["agent-lsp"]
        assert ours["tokensBefore"] == 6000 and 0 < ours["tokensAfter"] < 6000 and ours["trigger"] == "manual"
        # A client that draws compactions is not told again in a notice paragraph.
        assert not any("compressed from" in t for t, _ in agent)

        async with RawClient.spawn(agent_argv(None), _env(env, fake), project) as client:
            await client.initialize(caps)
            await client.result("session/load", {"sessionId": sid, **_new(project)})
            replayed = client.checker.updates(sid)
        client.checker.assert_clean()
        # The same messages with the same ids, from the recording.
        assert _messages(_chunks(replayed, "agent_message_chunk")) == _messages(agent)
        assert _messages(_chunks(replayed, "agent_thought_chunk")) == _messages(thought)
        users = _chunks(replayed, "user_message_chunk")
        assert [t[:6] for t, _ in users] == ["hello ", "again ", "/compr"] and all(i for _, i in users)
        assert [u for u in replayed if u["sessionUpdate"] == "compaction_update"] == steps

        # Without the capability: what every client was told before, a notice paragraph, and no compaction item.
        async with RawClient.spawn(agent_argv(None), _env(env, fake), project) as client:
            await client.initialize()
            await client.result("session/load", {"sessionId": sid, **_new(project)})
            plain = client.checker.updates(sid)
        client.checker.assert_clean()
        assert not any(u["sessionUpdate"] == "compaction_update" for u in plain)
        assert any("compressed from 6000" in t for t, _ in _chunks(plain, "agent_message_chunk"))


async def test_steering_joins_the_running_turn_or_starts_one(project: Path, env: dict[str, str]) -> None:
    with FakeGemini() as fake:
        fake.push(
            {"chunks": [_chunk("Working "), _chunk("on "), _chunk("it", finish=True)], "delay_s": 0.3},
            text_line("Noted: tests too."),
            text_line("A new turn."),
        )
        async with RawClient.spawn(agent_argv(None), _env(env, fake), project) as client:
            initialized = await client.initialize()
            assert initialized["_meta"]["steering"]["supported"] is True
            sid = (await client.result("session/new", _new(project)))["sessionId"]
            _rid, running = await client.start_request("session/prompt", _prompt(sid, "fix it"))
            await client.wait_for(lambda: bool(_chunks(client.checker.updates(sid), "agent_message_chunk")))
            steered = await client.result("_session/steering", _prompt(sid, "and run the tests"))
            assert steered["outcome"] == "injected"
            steered_id = steered["_meta"]["agent-lsp"]["messageId"]
            answer = await asyncio.wait_for(running, 20)
            assert answer["result"] == {"stopReason": "end_turn"}  # the prompt settles once, at the real end
            assert sum(1 for f in client.checker.frames if f.get("id") == _rid) == 1
            second = fake.generation_requests()[1].body["contents"]
            assert second[-1] == {"role": "user", "parts": [{"text": "and run the tests"}]}
            assert second[-2]["role"] == "model"  # after the answer it interrupted, where it was injected

            idle = {**_prompt(sid, "later"), "idleBehavior": "promptRequired"}
            assert await client.result("_session/steering", idle) == {
                "outcome": "promptRequired",
                "reason": "noRunningTurn",
            }
            claude_style = {**_prompt(sid, "later"), "_meta": {"steering": {"idleBehavior": "promptRequired"}}}
            assert (await client.result("_session/steering", claude_style))["outcome"] == "promptRequired"
            started = await client.result("_session/steering", _prompt(sid, "start one"))
            assert started == {"outcome": "startedNewTurn"}
            await client.wait_for(
                lambda: any(t == "A new turn." for t, _ in _chunks(client.checker.updates(sid), "agent_message_chunk"))
            )
            bad = await client.call("_session/steering", {**_prompt(sid, "x"), "idleBehavior": "later"})
            assert bad["error"]["code"] == -32602 and "idleBehavior" in bad["error"]["message"]
        client.checker.assert_clean()

        async with RawClient.spawn(agent_argv(None), _env(env, fake), project) as client:
            await client.initialize()
            await client.result("session/load", {"sessionId": sid, **_new(project)})
            users = _chunks(client.checker.updates(sid), "user_message_chunk")
            marks = [u.get("_meta") for u in client.checker.updates(sid) if u["sessionUpdate"] == "user_message_chunk"]
        assert marks == [None, {"agent-lsp": {"steered": True}}, None]
        assert users == [(users[0][0], users[0][1]), ("and run the tests", steered_id), (users[2][0], users[2][1])]
        assert [t for t, _ in users] == ["fix it", "and run the tests", "start one"]


async def test_a_subagent_is_a_child_session_for_a_client_that_shows_them(project: Path, env: dict[str, str]) -> None:
    def script(fake: FakeGemini) -> None:
        fake.push(
            call_line("invoke_agent", {"agent_name": "generalist", "prompt": "Write notes.txt"}),
            call_line("write_file", {"file_path": "notes.txt", "content": "notes\n"}, thought="Writing"),
            call_line("complete_task", {"result": {"response": "written"}}),
            text_line("The subagent wrote it."),
        )

    with FakeGemini() as fake:
        script(fake)
        async with RawClient.spawn(agent_argv(None), _env(env, fake), project) as client:
            await client.initialize({"subagents": {}})
            sid = (await client.result("session/new", _new(project)))["sessionId"]
            assert (await client.result("session/prompt", _prompt(sid, "delegate")))["stopReason"] == "end_turn"
            frames = [f for f in client.checker.frames if f.get("method") == "session/update"]
            asked = [r["params"] for r in client.agent_requests if r["method"] == "session/request_permission"]
        client.checker.assert_clean()
        assert client.checker.checked.get("SubagentUpdate", 0) >= 2  # validated against schema.unstable.json
        parent = [f["params"]["update"] for f in frames if f["params"]["sessionId"] == sid]
        lifecycle = [u for u in parent if u["sessionUpdate"] == "subagent_update"]
        child = lifecycle[0]["sessionId"]
        assert child != sid and lifecycle[0]["title"] == "generalist"
        assert lifecycle[0]["description"] == "Write notes.txt"
        assert [u["state"]["state"] for u in lifecycle] == ["running", "idle"]
        call = next(u for u in parent if u["sessionUpdate"] == "tool_call")
        assert lifecycle[0]["_meta"]["agent-lsp"]["subagent"] == {
            "parentToolCallId": call["toolCallId"],
            "agent": "generalist",
            "childSessionId": child,
        }
        # The announcement comes before any of the child's traffic; its updates go under its own id.
        first_child = next(i for i, f in enumerate(frames) if f["params"]["sessionId"] == child)
        announced = next(
            i for i, f in enumerate(frames) if f["params"]["update"].get("sessionUpdate") == "subagent_update"
        )
        assert announced < first_child
        own = [f["params"]["update"] for f in frames if f["params"]["sessionId"] == child]
        assert own[0]["sessionUpdate"] == "user_message_chunk" and "Write notes.txt" in own[0]["content"]["text"]
        assert any(u["sessionUpdate"] == "tool_call" and u["rawInput"].get("file_path") == "notes.txt" for u in own)
        # Its question is asked under the child session, after the child's tool call reached the client.
        assert [a["sessionId"] for a in asked] == [child]
        assert asked[0]["toolCall"]["_meta"]["agent-lsp"]["subagent"]["childSessionId"] == child
        # The parent's tool call no longer repeats the child's steps as text.
        assert not any(u.get("toolCallId") == call["toolCallId"] and "🔧" in str(u.get("content")) for u in parent)

        # A load replays the child session as it was sent live: announced, its updates under its id, then idle.
        async with RawClient.spawn(agent_argv(None), _env(env, fake), project) as client:
            await client.initialize({"subagents": {}})
            await client.result("session/load", {"sessionId": sid, **_new(project)})
            replayed = [f["params"] for f in client.checker.frames if f.get("method") == "session/update"]
        client.checker.assert_clean()
        again = [
            p["update"] for p in replayed if p["sessionId"] == sid and p["update"]["sessionUpdate"] == "subagent_update"
        ]
        assert [(u["sessionId"], u["state"]["state"]) for u in again] == [(child, "running"), (child, "idle")]
        from_child = [p["update"] for p in replayed if p["sessionId"] == child]
        assert from_child[0]["sessionUpdate"] == "user_message_chunk"
        assert any(
            u["sessionUpdate"] == "tool_call" and u["rawInput"].get("file_path") == "notes.txt" for u in from_child
        )

    (project / "notes.txt").unlink()
    with FakeGemini() as fake:
        script(fake)
        async with RawClient.spawn(agent_argv(None), _env(env, fake), project) as client:
            await client.initialize()
            sid = (await client.result("session/new", _new(project)))["sessionId"]
            await client.result("session/prompt", _prompt(sid, "delegate"))
            sessions = {f["params"]["sessionId"] for f in client.checker.frames if f.get("method") == "session/update"}
            asked = [
                r["params"]["sessionId"] for r in client.agent_requests if r["method"] == "session/request_permission"
            ]
            parent = client.checker.updates(sid)
        client.checker.assert_clean()
        assert sessions == {sid} and asked == [sid]  # today's folded tool call, nothing under a child id
        assert not any(u["sessionUpdate"] == "subagent_update" for u in parent)
        assert any("write_file" in str(u.get("content")) for u in parent if u["sessionUpdate"] == "tool_call_update")


async def test_a_clients_system_prompt_is_appended(project: Path, env: dict[str, str]) -> None:
    with FakeGemini() as fake:
        fake.push(text_line("ok"))
        async with RawClient.spawn(agent_argv(None), _env(env, fake), project) as client:
            initialized = await client.initialize()
            assert initialized["agentCapabilities"]["sessionCapabilities"]["systemPrompt"] == {}
            extra = {"mode": "append", "content": [{"type": "text", "text": "Answer in French."}]}
            sid = (await client.result("session/new", _new(project, systemPrompt=extra)))["sessionId"]
            await client.result("session/prompt", _prompt(sid, "hi"))
            for bad, field in (
                ({"mode": "override", "content": [{"type": "text", "text": "x"}]}, "systemPrompt.mode"),
                ({"mode": "append", "content": []}, "systemPrompt.content"),
                ({"mode": "append", "content": [{"type": "image", "data": "", "mimeType": "image/png"}]}, "content[0]"),
            ):
                refused = await client.call("session/new", _new(project, systemPrompt=bad))
                assert refused["error"]["code"] == -32602 and field in refused["error"]["message"], refused
        client.checker.assert_clean()
        system = fake.generation_requests()[0].body["systemInstruction"]["parts"][0]["text"]
        assert system.rstrip().endswith("Answer in French.") and len(system) > 1000  # ours first, then the client's
