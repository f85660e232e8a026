"""Custom ``.toml`` commands over ACP: announced in available_commands_update, refreshed when the files change,
and run with their shell snippet asked about through session/request_permission (in the editor's terminal)."""

from __future__ import annotations

from pathlib import Path

from acp import text_block

from tests.acp.editor import EditorClient, connect
from tests.acp.harness import agent_argv
from tests.fakes.fake_gemini import FakeGemini
from tests.replay_lines import text_line


def _names(update: dict[str, object]) -> dict[str, str]:
    return {c["name"]: c["description"] for c in update["availableCommands"]}  # type: ignore[attr-defined, index]


def _sent(fake: FakeGemini) -> list[str]:
    out = []
    for r in fake.generation_requests():
        user = [c for c in r.body["contents"] if c["role"] == "user"][-1]
        out.append("".join(p.get("text", "") for p in user["parts"]))
    return out


async def test_custom_commands_are_offered_refreshed_and_run(
    project: Path, env: dict[str, str], _private_home: Path
) -> None:
    commit = _private_home / ".gemini" / "commands" / "git" / "commit.toml"
    commit.parent.mkdir(parents=True)
    commit.write_text('description = "Write a commit message"\nprompt = "Commit {{args}}:\\n!{echo staged-diff}"\n')
    with FakeGemini() as fake:
        fake.push(text_line("feat: tidy"), text_line("later done"))
        editor = EditorClient(terminal=True)
        async with connect(editor, agent_argv(None), {**env, "GOOGLE_GEMINI_BASE_URL": fake.url}, project) as conn:
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            sid = session.session_id
            response = await conn.prompt(session_id=sid, prompt=[text_block("/git:commit tidy")])
            assert response.stop_reason == "end_turn"

            later = project / ".gemini" / "commands" / "later.toml"
            later.parent.mkdir(parents=True)
            later.write_text('prompt = "later prompt"\n')
            before = len(editor.updates(sid))
            response = await conn.prompt(session_id=sid, prompt=[text_block("/later")])
            assert response.stop_reason == "end_turn"
        sent = _sent(fake)
    editor.checker.assert_clean()
    updates = editor.updates(sid)
    first = next(u for u in updates if u["sessionUpdate"] == "available_commands_update")
    assert _names(first)["git:commit"] == "Write a commit message"
    assert "help" in _names(first) and "later" not in _names(first)

    # The snippet was asked about like the shell tool's call, ran in the editor's terminal, and its output
    # went into the prompt.
    [asked] = editor.permission_requests
    assert asked["toolCall"]["kind"] == "execute" and "echo staged-diff" in asked["toolCall"]["title"]
    assert editor.terminal_calls
    assert sent == ["Commit tidy:\nstaged-diff", "later prompt"]

    # The new file was noticed at the next prompt and announced before that prompt's stream.
    refreshed = [u for u in updates[before:] if u["sessionUpdate"] == "available_commands_update"]
    assert len(refreshed) == 1 and _names(refreshed[0])["later"] == "Custom command from later.toml"
    tail = updates[before:]
    answer = next(i for i, u in enumerate(tail) if u["sessionUpdate"] == "agent_message_chunk")
    assert tail.index(refreshed[0]) < answer
