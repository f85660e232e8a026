"""session/new is answered once the session's mode, model and credentials are known; the rest is built behind the
answer. A prompt sent at once waits for it, a session that cannot be built says so, and credentials a folder's
settings need but lack are asked for (-32000) before any session exists. Every frame is schema-checked."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.acp.harness import RawClient, agent_argv, write_script
from tests.replay_lines import text_line


def hold_the_build(home: Path, gate: Path, started: Path) -> None:
    """A SessionStart hook holds the rest of the session until ``gate`` exists, so the order is certain."""
    hook = home / "hold.py"
    hook.write_text(
        "import json, os, time\n"
        f"open({str(started)!r}, 'w').close()\n"
        f"while not os.path.exists({str(gate)!r}):\n    time.sleep(0.01)\n"
        "print(json.dumps({'systemMessage': 'start hook done'}))\n"
    )
    hooks = {"SessionStart": [{"hooks": [{"type": "command", "command": f"{sys.executable} {hook}"}]}]}
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(json.dumps({"hooks": hooks}))


async def test_a_prompt_sent_right_behind_the_answer_waits_for_the_session(
    tmp_path: Path, project: Path, env: dict[str, str], _private_home: Path
) -> None:
    gate, started = tmp_path / "go", tmp_path / "started"
    hold_the_build(_private_home, gate, started)
    script = write_script(tmp_path / "s.jsonl", [text_line("ready when you are")])
    async with RawClient.spawn(agent_argv(script), env, project) as client:
        await client.initialize({"session": {"notices": {}}})
        answer = await client.result("session/new", {"cwd": str(project), "mcpServers": []})
        sid = answer["sessionId"]
        assert answer["modes"]["currentModeId"] == "default"
        await client.wait_for(started.exists)  # the build is under way, held by the hook
        rid, prompted = await client.start_request(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
        )
        assert not prompted.done()
        gate.touch()
        result = (await prompted)["result"]
    assert result == {"stopReason": "end_turn"}
    client.checker.assert_clean()
    frames = client.checker.frames
    kinds = [f["params"]["update"]["sessionUpdate"] for f in frames if f.get("method") == "session/update"]
    # The session's commands and its start-up notice come before anything of the turn.
    assert kinds[:2] == ["available_commands_update", "notice"] and "agent_message_chunk" in kinds[2:]
    assert "start hook done" in json.dumps(frames)
    said = "".join(
        f["params"]["update"]["content"]["text"]
        for f in frames
        if f.get("method") == "session/update" and f["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    )
    assert said == "ready when you are"
    answered = next(i for i, f in enumerate(frames) if f.get("id") == rid and "result" in f)
    last_chunk = max(i for i, f in enumerate(frames) if "agent_message_chunk" in json.dumps(f))
    assert last_chunk < answered


async def test_a_prompt_cancelled_while_the_session_is_built_answers_cancelled_and_a_mode_change_waits(
    tmp_path: Path, project: Path, env: dict[str, str], _private_home: Path
) -> None:
    gate, started = tmp_path / "go", tmp_path / "started"
    hold_the_build(_private_home, gate, started)
    script = write_script(tmp_path / "s.jsonl", [text_line("never said")])
    async with RawClient.spawn(agent_argv(script), env, project) as client:
        await client.initialize({"session": {"notices": {}}})
        sid = (await client.result("session/new", {"cwd": str(project), "mcpServers": []}))["sessionId"]
        await client.wait_for(started.exists)
        _, prompted = await client.start_request(
            "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
        )
        _, mode_set = await client.start_request("session/set_mode", {"sessionId": sid, "modeId": "auto_edit"})
        await client.notify("session/cancel", {"sessionId": sid})
        gate.touch()
        assert (await prompted)["result"] == {"stopReason": "cancelled"}
        assert (await mode_set)["result"] == {}
    kinds = [u["sessionUpdate"] for u in client.checker.updates(sid)]
    assert "agent_message_chunk" not in kinds and "current_mode_update" in kinds
    client.checker.assert_clean()


async def test_a_session_that_cannot_be_built_says_why_and_its_prompt_fails_with_it(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    state = tmp_path / "state"
    state.write_text("a file where the agent's state folder should be")
    script = write_script(tmp_path / "s.jsonl", [text_line("never said")])
    async with RawClient.spawn(agent_argv(script), {**env, "AGENT_LSP_HOME": str(state)}, project) as client:
        await client.initialize({"session": {"notices": {}}})
        sid = (await client.result("session/new", {"cwd": str(project), "mcpServers": []}))["sessionId"]
        failed = await client.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]})
        notices = [u for u in client.checker.updates(sid) if u["sessionUpdate"] == "notice"]
    assert failed["error"]["code"] == -32603
    assert failed["error"]["message"].startswith("This session could not be opened: ")
    assert "Not a directory" in failed["error"]["message"]
    assert len(notices) == 1 and "This session could not be opened" in json.dumps(notices[0])
    client.checker.assert_clean()


async def test_a_folder_that_picks_a_provider_without_credentials_is_asked_to_authenticate(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text(json.dumps({"model": {"provider": "openai"}}))
    # The user has a Gemini key, so the agent offers sessions; this folder wants an endpoint nobody configured.
    async with RawClient.spawn(agent_argv(None), {**env, "GEMINI_API_KEY": "k-test"}, project) as client:
        await client.initialize()
        denied = await client.call("session/new", {"cwd": str(project), "mcpServers": []})
        listed = await client.result("session/list", {"cwd": str(project)})
    assert denied["error"]["code"] == -32000
    assert "Authentication required" in denied["error"]["message"] and "OPENAI" in denied["error"]["message"]
    assert listed["sessions"] == []  # nothing was recorded for the session that never opened
    client.checker.assert_clean()


async def test_a_key_in_a_trusted_folders_env_opens_sessions_there_only(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    (project / ".env").write_text("GEMINI_API_KEY=k-from-the-folder\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    async with RawClient.spawn(agent_argv(None), env, project) as client:
        await client.initialize()
        opened = await client.result("session/new", {"cwd": str(project), "mcpServers": []})
        denied = await client.call("session/new", {"cwd": str(elsewhere), "mcpServers": []})
    assert opened["sessionId"]
    # The folder's key never serves another folder.
    assert denied["error"]["code"] == -32000 and "GEMINI_API_KEY" in denied["error"]["message"]
    client.checker.assert_clean()
