"""Session lifecycle over ACP: load replays what was sent live, resume does not replay, list pages by cwd,
close and delete; modes and config options."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_lsp.adapters.coalesce import merge_text
from tests.acp.harness import RawClient, agent_argv, call_turn, text_turn, write_script

TODOS = [{"description": "Look", "status": "completed"}, {"description": "Report", "status": "in_progress"}]


def _new(project: Path) -> dict[str, Any]:
    return {"cwd": str(project), "mcpServers": []}


def _prompt(sid: str, text: str) -> dict[str, Any]:
    return {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}


async def test_load_replays_the_same_updates(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    script = write_script(
        tmp_path / "load.jsonl",
        [
            call_turn(("list_directory", {"dir_path": "src"}), ("write_todos", {"todos": TODOS}), text="Let me look."),
            call_turn(("run_shell_command", {"command": "echo hi"})),
            text_turn("Found ", "app.py."),
            text_turn("Second answer."),
        ],
    )
    async with RawClient.spawn(agent_argv(script), env, project) as client:
        await client.initialize()
        sid = (await client.result("session/new", _new(project)))["sessionId"]
        assert await client.result("session/prompt", _prompt(sid, "what is in src?")) == {"stopReason": "end_turn"}
        assert await client.result("session/prompt", _prompt(sid, "and then?")) == {"stopReason": "end_turn"}
        await client.wait_for(lambda: len(_split_announcements(client.checker.updates(sid))[0]) == 2)
        updates = client.checker.updates(sid)
    client.checker.assert_clean()
    # What the session announces about itself (its commands; once built, its model and what that model takes) is
    # the state of that session, not part of the conversation: a loaded session announces its own, after its answer.
    announced, live = _split_announcements(updates)
    assert [u["sessionUpdate"] for u in announced] == ["available_commands_update", "session_info_update"]
    assert {"tool_call", "tool_call_update", "plan", "usage_update", "session_info_update"} <= {
        u["sessionUpdate"] for u in live
    }

    async with RawClient.spawn(agent_argv(script), env, project) as client:
        await client.initialize()
        loaded = await client.result("session/load", {"sessionId": sid, **_new(project)})
        answered = next(i for i, f in enumerate(client.checker.frames) if "result" in f and f["result"] is loaded)
        before = [
            f["params"]["update"] for f in client.checker.frames[:answered] if f.get("method") == "session/update"
        ]
        # The loaded session's own announcements come after its answer, none of them in the replay.
        await client.wait_for(lambda: len(_split_announcements(client.checker.updates())[0]) == 2)
        after = [
            f["params"]["update"] for f in client.checker.frames[answered + 1 :] if f.get("method") == "session/update"
        ]
    client.checker.assert_clean()
    assert loaded["modes"]["currentModeId"] == "default"
    users = [u["content"]["text"] for u in before if u["sessionUpdate"] == "user_message_chunk"]
    assert users == ["what is in src?", "and then?"]
    # The same updates, except that text streamed in several chunks may come back in fewer (the recorder
    # merges consecutive text; the live stream merges by timing): compare with consecutive text joined.
    assert _joined([u for u in before if u["sessionUpdate"] != "user_message_chunk"]) == _joined(live)
    replayed_state, _ = _split_announcements(before)
    assert replayed_state == []
    announced_again, conversation_after = _split_announcements(after)
    assert conversation_after == []
    assert [u["sessionUpdate"] for u in announced_again] == ["available_commands_update", "session_info_update"]
    inputs = announced_again[1]["_meta"]["agent-lsp"]
    assert inputs == announced[1]["_meta"]["agent-lsp"] and inputs["promptCapabilities"]["image"] is True


def _split_announcements(updates: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the session's announcements of its own state, the conversation): the commands, and a session_info_update
    with no title (it carries the model and its promptCapabilities in _meta), are state."""

    def state(update: dict[str, Any]) -> bool:
        kind = update["sessionUpdate"]
        return kind == "available_commands_update" or (kind == "session_info_update" and "title" not in update)

    return [u for u in updates if state(u)], [u for u in updates if not state(u)]


def _joined(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for update in updates:
        merged = merge_text({"sessionId": "", "update": out[-1]}, {"sessionId": "", "update": update}) if out else None
        if merged is not None:
            out[-1] = merged["update"]
        else:
            out.append(update)
    return out


async def test_list_resume_close_delete(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    other = tmp_path / "other"
    other.mkdir()
    script = write_script(
        tmp_path / "s.jsonl", [text_turn("one"), text_turn("two"), text_turn("three"), text_turn("resumed")]
    )
    async with RawClient.spawn(agent_argv(script), env, project) as client:
        await client.initialize()
        ids = []
        for n in range(3):
            sid = (await client.result("session/new", _new(project)))["sessionId"]
            await client.result("session/prompt", _prompt(sid, f"prompt number {n}"))
            ids.append(sid)
        elsewhere = (await client.result("session/new", _new(other)))["sessionId"]

        first = await client.result("session/list", {"cwd": str(project), "_meta": {"pageSize": 2}})
        assert len(first["sessions"]) == 2 and first["nextCursor"]
        second = await client.result(
            "session/list", {"cwd": str(project), "cursor": first["nextCursor"], "_meta": {"pageSize": 2}}
        )
        assert second.get("nextCursor") is None
        listed = first["sessions"] + second["sessions"]
        assert sorted(s["sessionId"] for s in listed) == sorted(ids) and elsewhere not in {
            s["sessionId"] for s in listed
        }
        assert {s["title"] for s in listed} == {f"prompt number {n}" for n in range(3)}
        assert all(s["cwd"] == str(project) and s["updatedAt"] for s in listed)
        bad = await client.call("session/list", {"cwd": str(project), "cursor": "not-a-cursor"})
        assert bad["error"]["code"] == -32602 and "cursor" in bad["error"]["message"]

        assert await client.result("session/close", {"sessionId": ids[0]}) == {}
        gone = await client.call("session/prompt", _prompt(ids[0], "hello?"))
        assert gone["error"]["code"] == -32002

        count = len(client.checker.updates(ids[0]))
        resumed = await client.result("session/resume", {"sessionId": ids[0], "cwd": str(project)})
        assert resumed["configOptions"][0]["id"] == "model"
        # A resume replays nothing: the session only announces its own state (commands, then its model's inputs).
        await client.wait_for(lambda: len(client.checker.updates(ids[0])) >= count + 2)
        announced = client.checker.updates(ids[0])[count:]
        assert [u["sessionUpdate"] for u in announced] == ["available_commands_update", "session_info_update"]
        assert "title" not in announced[1]
        assert set(announced[1]["_meta"]["agent-lsp"]) == {"promptCapabilities", "model"}
        assert await client.result("session/prompt", _prompt(ids[0], "again")) == {"stopReason": "end_turn"}

        assert await client.result("session/delete", {"sessionId": ids[1]}) == {}
        listed = (await client.result("session/list", {"cwd": str(project)}))["sessions"]
        assert ids[1] not in {s["sessionId"] for s in listed} and len(listed) == 2
        missing = await client.call("session/delete", {"sessionId": ids[1]})
        assert missing["error"]["code"] == -32002
        unknown = await client.call("session/load", {"sessionId": "nope", **_new(project)})
        assert unknown["error"]["code"] == -32002
    client.checker.assert_clean()


async def test_modes_and_config_options(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path / "m.jsonl", [])
    async with RawClient.spawn(agent_argv(script), env, project) as client:
        await client.initialize()
        created = await client.result("session/new", _new(project))
        sid = created["sessionId"]
        assert [m["id"] for m in created["modes"]["availableModes"]] == ["default", "auto_edit", "yolo", "plan"]
        assert all(m["name"] and m["description"] for m in created["modes"]["availableModes"])
        assert [o["id"] for o in created["configOptions"]] == ["model", "mode"]

        assert await client.result("session/set_mode", {"sessionId": sid, "modeId": "plan"}) == {}
        await client.wait_for(
            lambda: any(u["sessionUpdate"] == "config_option_update" for u in client.checker.updates(sid))
        )
        kinds = [u["sessionUpdate"] for u in client.checker.updates(sid)]
        assert "current_mode_update" in kinds
        mode_update = next(u for u in client.checker.updates(sid) if u["sessionUpdate"] == "current_mode_update")
        assert mode_update["currentModeId"] == "plan"

        changed = await client.result(
            "session/set_config_option", {"sessionId": sid, "configId": "model", "value": "gemini-2.5-flash"}
        )
        model = next(o for o in changed["configOptions"] if o["id"] == "model")
        assert model["currentValue"] == "gemini-2.5-flash"
        changed = await client.result(
            "session/set_config_option", {"sessionId": sid, "configId": "mode", "value": "auto_edit"}
        )
        assert next(o for o in changed["configOptions"] if o["id"] == "mode")["currentValue"] == "auto_edit"

        bad = await client.call("session/set_mode", {"sessionId": sid, "modeId": "turbo"})
        assert bad["error"]["code"] == -32602 and "modeId" in bad["error"]["message"]
        bad = await client.call("session/set_config_option", {"sessionId": sid, "configId": "colour", "value": "red"})
        assert bad["error"]["code"] == -32602 and "configId" in bad["error"]["message"]
    client.checker.assert_clean()


async def test_yolo_refused_in_an_untrusted_folder(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path / "u.jsonl", [text_turn("ok")])
    untrusted = {**env, "AGENT_LSP_TRUST_WORKSPACE": "false"}
    async with RawClient.spawn(agent_argv(script), untrusted, project) as client:
        await client.initialize()
        sid = (await client.result("session/new", _new(project)))["sessionId"]
        refused = await client.call("session/set_mode", {"sessionId": sid, "modeId": "yolo"})
        assert refused["error"]["code"] == -32600
        assert "YOLO" in refused["error"]["message"] and "not trusted" in refused["error"]["message"]
        await client.result("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]})
        # The untrusted-folder notice reaches the user as a message in the first prompt's stream (the client
        # did not advertise notices).
        texts = [
            u["content"]["text"] for u in client.checker.updates(sid) if u["sessionUpdate"] == "agent_message_chunk"
        ]
        assert any("not trusted" in t for t in texts)
        assert all(u["sessionUpdate"] != "current_mode_update" for u in client.checker.updates(sid))
    client.checker.assert_clean()


async def test_notices_as_notice_updates_when_advertised(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path / "n.jsonl", [])
    untrusted = {**env, "AGENT_LSP_TRUST_WORKSPACE": "false"}
    async with RawClient.spawn(agent_argv(script), untrusted, project) as client:
        await client.initialize({"session": {"notices": {}}})
        sid = (await client.result("session/new", _new(project)))["sessionId"]
        await client.wait_for(lambda: any(u["sessionUpdate"] == "notice" for u in client.checker.updates(sid)))
        notice = next(u for u in client.checker.updates(sid) if u["sessionUpdate"] == "notice")
        assert notice["severity"] == "warning" and "not trusted" in notice["title"]
    client.checker.assert_clean()


async def test_client_mcp_server_failure_is_shown(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path / "mcp.jsonl", [])
    broken = {"name": "broken", "command": str(tmp_path / "no-such-server"), "args": [], "env": []}
    async with RawClient.spawn(agent_argv(script), env, project) as client:
        await client.initialize({"session": {"notices": {}}})
        sid = (await client.result("session/new", {"cwd": str(project), "mcpServers": [broken]}))["sessionId"]
        await client.wait_for(lambda: any(u["sessionUpdate"] == "notice" for u in client.checker.updates(sid)))
        notice = next(u for u in client.checker.updates(sid) if u["sessionUpdate"] == "notice")
        assert notice["severity"] in ("warning", "error") and "broken" in notice["title"]
    client.checker.assert_clean()


async def test_additional_directories_are_workspace_roots(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "lib.txt").write_text("shared library notes\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    script = write_script(
        tmp_path / "roots.jsonl",
        [
            call_turn(
                ("read_file", {"file_path": str(shared / "lib.txt")}), ("read_file", {"file_path": str(outside)})
            ),
            text_turn("read"),
        ],
    )
    async with RawClient.spawn(agent_argv(script), env, project) as client:
        await client.initialize()
        params = {"cwd": str(project), "mcpServers": [], "additionalDirectories": [str(shared)]}
        sid = (await client.result("session/new", params))["sessionId"]
        assert await client.result("session/prompt", _prompt(sid, "read both")) == {"stopReason": "end_turn"}
        calls = [u["toolCallId"] for u in client.checker.updates(sid) if u["sessionUpdate"] == "tool_call"]
        finals = {u["toolCallId"]: u for u in client.checker.updates(sid) if u.get("status") in ("completed", "failed")}
        assert [finals[c]["status"] for c in calls] == ["completed", "failed"]
        assert "outside the workspace" in str(finals[calls[1]]["content"])
        bad = await client.call("session/new", {**params, "additionalDirectories": ["relative/dir"]})
        assert bad["error"]["code"] == -32602 and "additionalDirectories[0]" in bad["error"]["message"]
    client.checker.assert_clean()


async def test_a_malformed_settings_file_is_reported_and_the_agent_goes_on(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    settings = project / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"model": {"maxSessionTurns": "many"}, "tools": {"allowed": ["read_file"]}}')
    script = write_script(tmp_path / "bad.jsonl", [text_turn("still here")])
    async with RawClient.spawn(agent_argv(script), env, project) as client:
        await client.initialize({"session": {"notices": {}}})
        sid = (await client.result("session/new", _new(project)))["sessionId"]
        await client.wait_for(lambda: any(u["sessionUpdate"] == "notice" for u in client.checker.updates(sid)))
        notice = next(u for u in client.checker.updates(sid) if u["sessionUpdate"] == "notice")
        assert notice["severity"] == "error"
        assert str(settings) in notice["title"] and "model.maxSessionTurns" in notice["title"]
        result = await client.result("session/prompt", _prompt(sid, "hello"))
        assert result["stopReason"] == "end_turn"
    client.checker.assert_clean()
