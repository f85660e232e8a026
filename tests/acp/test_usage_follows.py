"""Usage follows the conversation over ACP (raw frames, each checked against the pinned schema) with the fake Gemini
server behind the agent: after a rewind, its undo, a model switch and a fork, a ``usage_update`` estimates the
context the next request will carry, against the model's window, with the cost spent kept; ``/compress`` says
its result as text only to a client that does not draw the compaction item."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.acp.harness import RawClient, agent_argv
from tests.acp.test_protocol_now import _chunk, _chunks, _env, _new, _prompt, _summary
from tests.fakes.fake_gemini import FakeGemini

REWIND = "_agent-lsp/rewind"


def _chars(contents: list[dict[str, Any]]) -> int:
    """The characters the agent's estimate counts (text only here: these conversations call no tool)."""
    return sum(len(p["text"]) for c in contents for p in c["parts"] if "text" in p)


def _last_usage(client: RawClient, sid: str) -> dict[str, Any]:
    return [u for u in client.checker.updates(sid) if u["sessionUpdate"] == "usage_update"][-1]


async def test_usage_follows_rewind_undo_model_switch_and_fork(project: Path, env: dict[str, str]) -> None:
    long = " ".join(f"word{i}" for i in range(400))  # varied: repeated text would trip loop detection
    answer = "second answer " + long
    with FakeGemini() as fake:
        fake.push(
            [_chunk("first answer", finish=True, tokens=3000)],
            [_chunk(answer, finish=True, tokens=5000)],
        )
        async with RawClient.spawn(agent_argv(None), _env(env, fake), project) as client:
            await client.initialize()
            sid = (await client.result("session/new", _new(project)))["sessionId"]
            await client.result("session/prompt", _prompt(sid, "hello " + long))
            await client.result("session/prompt", _prompt(sid, "again " + long))
            spent = _last_usage(client, sid)
            assert spent["used"] == 5005 and "estimated" not in spent["_meta"]["agent-lsp"]

            # What the second request carried: the history then, and a fixed part (system prompt, tools).
            request = [r for r in fake.requests if r.action and "generate" in r.action.lower()][-1]
            contents = request.body["contents"]
            fixed = 5000 - _chars(contents) // 4

            await client.result(REWIND, {"sessionId": sid, "messageIndex": 1})
            rewound = _last_usage(client, sid)
            assert rewound["used"] == fixed + _chars(contents[:-1]) // 4  # the history before "again …"
            assert rewound["used"] < spent["used"] and rewound["size"] == 1_048_576
            assert rewound["cost"] == spent["cost"]  # spent is spent: a rewind gives no cost back
            ours = rewound["_meta"]["agent-lsp"]
            assert ours["estimated"] is True and ours["session"]["requests"] == 2 and "turn" not in ours

            await client.result(REWIND, {"sessionId": sid, "undo": True})
            undone = _last_usage(client, sid)
            assert undone["used"] == fixed + (_chars(contents) + len(answer)) // 4
            assert undone["_meta"]["agent-lsp"]["estimated"] is True and undone["cost"] == spent["cost"]

            params = {"sessionId": sid, "configId": "model", "value": "gemini-1.5-pro"}
            await client.result("session/set_config_option", params)
            switched = _last_usage(client, sid)
            assert (switched["used"], switched["size"]) == (undone["used"], 2_097_152)  # the new model's window
            assert switched["cost"] == spent["cost"]

            # A fork from message 1 starts with its copied history's figure (sent once the client knows the fork).
            fork = await client.result(
                "session/fork", {**_new(project), "sessionId": sid, "_meta": {"messageIndex": 1}}
            )
            fid = fork["sessionId"]
            await client.wait_for(
                lambda: any(u["sessionUpdate"] == "usage_update" for u in client.checker.updates(fid))
            )
            forked = _last_usage(client, fid)
            assert (forked["used"], forked["size"]) == (rewound["used"], 2_097_152)
            assert forked["_meta"]["agent-lsp"]["estimated"] is True
        client.checker.assert_clean()


async def test_compress_says_its_result_once(project: Path, env: dict[str, str]) -> None:
    """A client that draws compactions gets the item and no text; one that does not gets the text."""
    long = " ".join(f"word{i}" for i in range(300))
    for caps, texts in (({"session": {"compaction": {}}}, 0), (None, 1)):
        with FakeGemini() as fake:
            fake.push(
                [_chunk("Hello " + long, finish=True, tokens=4000)],
                [_chunk("again " + long, finish=True, tokens=5000)],
                _summary("<state_snapshot>we said hello</state_snapshot>"),
            )
            async with RawClient.spawn(agent_argv(None), _env(env, fake), project) as client:
                await client.initialize(caps)
                sid = (await client.result("session/new", _new(project)))["sessionId"]
                await client.result("session/prompt", _prompt(sid, "hello " + long))
                await client.result("session/prompt", _prompt(sid, "again " + long))
                await client.result("session/prompt", _prompt(sid, "/compress"))
                updates = client.checker.updates(sid)
            client.checker.assert_clean()
        said = [t for t, _ in _chunks(updates, "agent_message_chunk") if t.startswith("Compressed the conversation")]
        assert len(said) == texts
        items = [u for u in updates if u["sessionUpdate"] == "compaction_update" and u["status"] == "completed"]
        assert len(items) == 1 - texts
        if said:
            assert said[0] == f"Compressed the conversation from 5000 to about {_tokens_after(said[0])} tokens."
        # The prompt's closing usage_update reports the compressed conversation, not the one before.
        usage = [u for u in updates if u["sessionUpdate"] == "usage_update"][-1]
        assert usage["used"] < 5000


def _tokens_after(text: str) -> int:
    return int(text.split("about ")[1].split(" ")[0])
