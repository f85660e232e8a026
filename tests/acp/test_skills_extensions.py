"""Agent skills and extensions over ACP, with real folders in a scratch HOME and a trusted workspace: skills are
listed to the model, activate_skill asks the editor and loads the instructions, /skills and /extensions answer in
the editor, and an extension's context file and command reach the model while a disabled extension's do not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp import text_block

from tests.acp.editor import EditorClient, connect
from tests.acp.harness import agent_argv
from tests.fakes.fake_gemini import FakeGemini
from tests.replay_lines import call_line, text_line


def _system(body: dict[str, Any]) -> str:
    return "".join(p.get("text", "") for p in body["systemInstruction"]["parts"])


def _said(updates: list[dict[str, Any]]) -> str:
    return "".join(u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk")


def _commands(updates: list[dict[str, Any]]) -> dict[str, str]:
    [first, *_] = [u for u in updates if u["sessionUpdate"] == "available_commands_update"]
    return {c["name"]: c["description"] for c in first["availableCommands"]}


def _skills(home: Path, project: Path) -> None:
    user = home / ".gemini" / "skills" / "pr-review"
    user.mkdir(parents=True)
    (user / "SKILL.md").write_text(
        "---\nname: pr-review\ndescription: Reviews a pull request.\n---\nCheck every item of the checklist.\n"
    )
    ws = project / ".gemini" / "skills" / "deploy"
    ws.mkdir(parents=True)
    (ws / "SKILL.md").write_text("---\nname: deploy\ndescription: Ships the app.\n---\nRun make ship.\n")


def _extension(home: Path, name: str, context: str, command: str) -> Path:
    ext = home / ".gemini" / "extensions" / name
    (ext / "commands").mkdir(parents=True)
    manifest = {"name": name, "version": "1.0.0", "description": f"The {name} kit", "contextFileName": "CTX.md"}
    (ext / "gemini-extension.json").write_text(json.dumps(manifest))
    (ext / "CTX.md").write_text(context + "\n")
    (ext / "commands" / f"{command}.toml").write_text(f'description = "Run {command}"\nprompt = "Do {command} now"\n')
    return ext


async def test_skills_are_listed_activated_with_permission_and_listed_by_slash_command(
    project: Path, env: dict[str, str], _private_home: Path
) -> None:
    _skills(_private_home, project)
    with FakeGemini() as fake:
        fake.push(call_line("activate_skill", {"name": "pr-review"}), text_line("Reviewed."), text_line("Later."))
        editor = EditorClient()
        async with connect(editor, agent_argv(None), {**env, "GOOGLE_GEMINI_BASE_URL": fake.url}, project) as conn:
            sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            response = await conn.prompt(session_id=sid, prompt=[text_block("review my PR")])
            assert response.stop_reason == "end_turn"
            before = len(editor.updates(sid))
            response = await conn.prompt(session_id=sid, prompt=[text_block("/skills list")])
            assert response.stop_reason == "end_turn"
            after_list = len(editor.updates(sid))
            await conn.prompt(session_id=sid, prompt=[text_block("/skills disable deploy")])
            toggled = _said(editor.updates(sid)[after_list:])
            await conn.prompt(session_id=sid, prompt=[text_block("anything else?")])
        first, second, third = (r.body for r in fake.generation_requests())
    editor.checker.assert_clean()
    system = _system(first)
    assert "<name>pr-review</name>" in system and "<name>deploy</name>" in system
    [asked] = editor.permission_requests
    assert asked["toolCall"]["title"] == '"pr-review": Reviews a pull request.'
    assert "You are about to enable the specialized agent skill **pr-review**." in json.dumps(asked["toolCall"])
    answer = second["contents"][-1]["parts"][0]["functionResponse"]["response"]["output"]
    assert answer.startswith('<activated_skill name="pr-review">') and "Check every item of the checklist." in answer
    listed = _said(editor.updates(sid)[before:after_list])
    assert listed == (
        "Agent skills:\n- `deploy` (workspace, enabled): Ships the app.\n"
        "- `pr-review` (user, enabled, active): Reviews a pull request.\n"
        "- `skill-creator` (builtin, enabled): How to write a new agent skill (or improve an existing one) that "
        "gives this agent a workflow, domain knowledge or scripts of its own. Use it when the user asks to create, "
        "change or package a skill."
    )

    # Toggled from the editor: written to the user's settings and no longer offered from the next request on.
    assert toggled.startswith("Skill `deploy` disabled (user settings:")
    assert json.loads((_private_home / ".gemini" / "settings.json").read_text()) == {"skills": {"disabled": ["deploy"]}}
    assert "<name>deploy</name>" not in _system(third) and "<name>pr-review</name>" in _system(third)


async def test_extension_context_and_command_reach_the_model_and_a_disabled_one_stays_out(
    project: Path, env: dict[str, str], _private_home: Path
) -> None:
    _extension(_private_home, "ops-kit", "Deploys go through the ops pipeline only.", "status")
    _extension(_private_home, "old-kit", "Legacy rules apply.", "legacy")
    rules = {"old-kit": {"overrides": [f"!{project}/*"]}}  # Gemini CLI's enablement file: off in this workspace
    (_private_home / ".gemini" / "extensions" / "extension-enablement.json").write_text(json.dumps(rules))
    with FakeGemini() as fake:
        fake.push(text_line("all green"))
        editor = EditorClient()
        async with connect(editor, agent_argv(None), {**env, "GOOGLE_GEMINI_BASE_URL": fake.url}, project) as conn:
            sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            response = await conn.prompt(session_id=sid, prompt=[text_block("/status")])
            assert response.stop_reason == "end_turn"
            before = len(editor.updates(sid))
            response = await conn.prompt(session_id=sid, prompt=[text_block("/extensions")])
            assert response.stop_reason == "end_turn"
        [request] = (r.body for r in fake.generation_requests())
    editor.checker.assert_clean()
    commands = _commands(editor.updates(sid))
    assert commands["status"] == "[ops-kit] Run status" and "legacy" not in commands
    assert request["contents"][-1]["parts"][0] == {"text": "Do status now"}
    system = _system(request)
    assert "Deploys go through the ops pipeline only." in system and "Legacy rules apply." not in system
    listed = _said(editor.updates(sid)[before:])
    assert "`ops-kit` 1.0.0: The ops-kit kit" in listed and "old-kit" not in listed
