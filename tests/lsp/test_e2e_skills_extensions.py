"""Agent skills and extensions over LSP, with real folders in a scratch HOME and a trusted workspace: skills are
listed to the model, activate_skill asks through agent/requestPermission and loads the instructions, /skills and
/extensions answer in the editor, and an extension's command (in agent/newSession's list) and context file reach
the model while a disabled extension's do not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.acp_schema import validate
from tests.fakes.fake_gemini import FakeGemini
from tests.replay_lines import call_line, text_line

PERMISSIONS = {"agent": {"permissionRequests": True}}


def _system(body: dict[str, Any]) -> str:
    return "".join(p.get("text", "") for p in body["systemInstruction"]["parts"])


def _extension(home: Path, name: str, context: str, command: str) -> None:
    ext = home / ".gemini" / "extensions" / name
    (ext / "commands").mkdir(parents=True)
    manifest = {"name": name, "version": "1.0.0", "description": f"The {name} kit", "contextFileName": "CTX.md"}
    (ext / "gemini-extension.json").write_text(json.dumps(manifest))
    (ext / "CTX.md").write_text(context + "\n")
    (ext / "commands" / f"{command}.toml").write_text(f'description = "Run {command}"\nprompt = "Do {command} now"\n')


async def test_skills_listed_activated_with_permission_and_listed_by_slash_command(launch: Any, tmp_path: Path) -> None:
    user = tmp_path / "home" / ".gemini" / "skills" / "pr-review"
    user.mkdir(parents=True)
    (user / "SKILL.md").write_text(
        "---\nname: pr-review\ndescription: Reviews a pull request.\n---\nCheck every item of the checklist.\n"
    )
    ws = tmp_path / "project" / ".gemini" / "skills" / "deploy"
    ws.mkdir(parents=True)
    (ws / "SKILL.md").write_text("---\nname: deploy\ndescription: Ships the app.\n---\nRun make ship.\n")
    with FakeGemini() as fake:
        fake.push(call_line("activate_skill", {"name": "pr-review"}), text_line("Reviewed."), text_line("Later."))
        env = {"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}
        editor = await launch([], replay=False, extra_env=env, experimental=PERMISSIONS)
        session = await editor.new_session()
        answer = await editor.request("agent/prompt", {"sessionId": session, "prompt": "review my PR"})
        assert answer == {"stopReason": "end_turn"}
        assert editor.messages() == "Reviewed."
        before = len(editor.updates)
        answer = await editor.request("agent/prompt", {"sessionId": session, "prompt": "/skills list"})
        assert answer == {"stopReason": "end_turn"}
        after_list = len(editor.updates)
        await editor.request("agent/prompt", {"sessionId": session, "prompt": "/skills disable pr-review"})
        await editor.request("agent/prompt", {"sessionId": session, "prompt": "anything else?"})
        first, second, third = (r.body for r in fake.generation_requests())
    system = _system(first)
    assert "<name>pr-review</name>" in system and "<name>deploy</name>" in system
    [asked] = editor.permission_requests
    validate("RequestPermissionRequest", asked)
    assert asked["toolCall"]["title"] == '"pr-review": Reviews a pull request.'
    assert "You are about to enable the specialized agent skill **pr-review**." in json.dumps(asked["toolCall"])
    output = second["contents"][-1]["parts"][0]["functionResponse"]["response"]["output"]
    assert output.startswith('<activated_skill name="pr-review">') and "Check every item of the checklist." in output
    listed = "".join(
        u["update"]["content"]["text"]
        for u in editor.updates[before:after_list]
        if u["update"]["sessionUpdate"] == "agent_message_chunk"
    )
    assert listed == (
        "Agent skills:\n- `deploy` (workspace, enabled): Ships the app.\n"
        "- `pr-review` (user, enabled, active): Reviews a pull request.\n"
        "- `skill-creator` (builtin, enabled): How to write a new agent skill (or improve an existing one) that "
        "gives this agent a workflow, domain knowledge or scripts of its own. Use it when the user asks to create, "
        "change or package a skill."
    )
    # Toggled from the editor: saved in the user's settings and no longer offered from the next request on.
    settings = json.loads((tmp_path / "home" / ".gemini" / "settings.json").read_text())
    assert settings == {"skills": {"disabled": ["pr-review"]}}
    assert "<name>pr-review</name>" not in _system(third) and "<name>deploy</name>" in _system(third)


async def test_extension_command_listed_and_run_context_sent_disabled_left_out(launch: Any, tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = tmp_path / "project"
    project.mkdir()
    _extension(home, "ops-kit", "Deploys go through the ops pipeline only.", "status")
    _extension(home, "old-kit", "Legacy rules apply.", "legacy")
    rules = {"old-kit": {"overrides": [f"!{project.resolve()}/*"]}}  # Gemini CLI's enablement file
    (home / ".gemini" / "extensions" / "extension-enablement.json").write_text(json.dumps(rules))
    with FakeGemini() as fake:
        fake.push(text_line("all green"))
        env = {"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url}
        editor = await launch([], replay=False, extra_env=env)
        result = await editor.request("agent/newSession", {"cwd": str(editor.project)})
        session = result["sessionId"]
        built = await editor.wait_update(session, "available_commands_update")  # once the session is built
        commands = {c["name"]: c["description"] for c in built["availableCommands"]}
        assert commands["status"] == "[ops-kit] Run status" and "legacy" not in commands
        answer = await editor.request("agent/prompt", {"sessionId": session, "prompt": "/status"})
        assert answer == {"stopReason": "end_turn"}
        assert editor.messages() == "all green"
        before = len(editor.updates)
        await editor.request("agent/prompt", {"sessionId": session, "prompt": "/extensions"})
        [request] = (r.body for r in fake.generation_requests())
    assert request["contents"][-1]["parts"][0] == {"text": "Do status now"}
    system = _system(request)
    assert "Deploys go through the ops pipeline only." in system and "Legacy rules apply." not in system
    listed = "".join(
        u["update"]["content"]["text"]
        for u in editor.updates[before:]
        if u["update"]["sessionUpdate"] == "agent_message_chunk"
    )
    assert "`ops-kit` 1.0.0: The ops-kit kit" in listed and "old-kit" not in listed
