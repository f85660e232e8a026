"""Agent skills end to end: SKILL.md folders in a scratch HOME and project, offered to the model in the system
prompt and through activate_skill (the fake Gemini server records both), listed and toggled from the command
line and with /skills."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_gemini import FakeGemini
from tests.replay_lines import call_line, text_line

REVIEW = """---
name: pr-review
description: >
  Reviews a pull request
  against the team checklist.
---
# PR review
1. Read checklist.md in this folder.
2. Comment on every failing item.
"""


@pytest.fixture
def project(tmp_path: Path, _private_home: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    user = _private_home / ".gemini" / "skills" / "pr-review"
    user.mkdir(parents=True)
    (user / "SKILL.md").write_text(REVIEW)
    (user / "checklist.md").write_text("- tests pass\n- docs updated\n")
    ws = root / ".gemini" / "skills" / "deploy"
    ws.mkdir(parents=True)
    (ws / "SKILL.md").write_text(
        '---\nname: deploy\ndescription: "Ships the app: build, tag, push."\n---\nRun make ship.\n'
    )
    broken = _private_home / ".agents" / "skills" / "broken"
    broken.mkdir(parents=True)
    (broken / "SKILL.md").write_text("no front matter here\n")
    return root


def cli(fake: FakeGemini | None, project: Path, *args: str, trusted: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "AGENT_LSP_TRUST"))}
    if fake is not None:
        env.update({"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url})
    env["AGENT_LSP_TRUST_WORKSPACE"] = "true" if trusted else "false"
    return subprocess.run(
        [sys.executable, "-m", "agent_lsp", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def system_text(body: dict[str, Any]) -> str:
    return "".join(p.get("text", "") for p in body["systemInstruction"]["parts"])


def declaration(body: dict[str, Any], name: str) -> dict[str, Any] | None:
    for tool in body.get("tools", []):
        for decl in tool.get("functionDeclarations", []):
            if decl["name"] == name:
                # The SDK forwards nested fields under their Python names, which the API accepts too.
                return {**decl, "schema": decl.get("parametersJsonSchema", decl.get("parameters_json_schema"))}
    return None


def test_skills_are_offered_and_activation_loads_instructions_and_resources(
    fake: FakeGemini, project: Path, _private_home: Path
) -> None:
    checklist = _private_home / ".gemini" / "skills" / "pr-review" / "checklist.md"
    fake.push(
        call_line("activate_skill", {"name": "pr-review"}),
        call_line("read_file", {"file_path": str(checklist)}),
        text_line("Reviewed."),
    )
    result = cli(fake, project, "run", "--approval-mode", "yolo", "review my PR")
    assert result.returncode == 0, result.stderr
    assert "broken/SKILL.md was skipped: it must start with front matter" in result.stderr
    first, second, third = (r.body for r in fake.generation_requests())
    system = system_text(first)
    assert "# Available Agent Skills" in system
    assert (
        "<name>pr-review</name>\n    <description>Reviews a pull request against the team checklist.</description>"
        in (system)
    )
    assert "<name>deploy</name>\n    <description>Ships the app: build, tag, push.</description>" in system
    decl = declaration(first, "activate_skill")
    # The built-in skill comes first, as Gemini CLI 0.61's own skills do.
    assert decl is not None and decl["schema"]["properties"]["name"]["enum"] == ["skill-creator", "pr-review", "deploy"]
    activated = second["contents"][-1]["parts"][0]["functionResponse"]["response"]["output"]
    assert activated.startswith('<activated_skill name="pr-review">')
    assert "1. Read checklist.md in this folder." in activated and "checklist.md" in activated.split("<available")[1]
    read = third["contents"][-1]["parts"][0]["functionResponse"]["response"]["output"]
    assert "docs updated" in read  # the skill's folder became readable after activation


def test_untrusted_folder_offers_only_the_users_skills(fake: FakeGemini, project: Path) -> None:
    fake.push(text_line("ok"))
    assert cli(fake, project, "run", "hi", trusted=False).returncode == 0
    [request] = fake.generation_requests()
    assert "<name>pr-review</name>" in system_text(request.body)
    assert "<name>deploy</name>" not in system_text(request.body)


def test_activation_needs_approval(fake: FakeGemini, project: Path) -> None:
    """Activation asks first: headless with nobody to ask, the tool is not offered at all."""
    fake.push(text_line("Fine."))
    result = cli(fake, project, "run", "ship it")
    assert result.returncode == 0, result.stderr
    assert declaration(fake.generation_requests()[0].body, "activate_skill") is None


def test_list_and_toggle_from_the_command_line(fake: FakeGemini, project: Path, _private_home: Path) -> None:
    listed = cli(None, project, "skills", "list")
    assert listed.returncode == 0, listed.stderr
    assert "deploy  [workspace, enabled]" in listed.stdout and "pr-review  [user, enabled]" in listed.stdout
    off = cli(None, project, "skills", "disable", "deploy", "--scope", "workspace")
    assert off.returncode == 0, off.stderr
    assert json.loads((project / ".gemini" / "settings.json").read_text()) == {"skills": {"disabled": ["deploy"]}}
    assert "deploy  [workspace, disabled]" in cli(None, project, "skills", "list").stdout
    assert cli(None, project, "skills", "disable", "nope").returncode == 1

    fake.push(text_line("ok"))
    assert cli(fake, project, "run", "--approval-mode", "yolo", "hi").returncode == 0
    decl = declaration(fake.generation_requests()[0].body, "activate_skill")
    assert decl is not None and decl["schema"]["properties"]["name"]["enum"] == ["skill-creator", "pr-review"]

    assert cli(None, project, "skills", "enable", "deploy", "--scope", "workspace").returncode == 0
    assert "deploy  [workspace, enabled]" in cli(None, project, "skills", "list").stdout


def test_skills_slash_command_lists_and_toggles(fake: FakeGemini, project: Path, _private_home: Path) -> None:
    listed = cli(fake, project, "run", "/skills")
    assert "- `deploy` (workspace, enabled): Ships the app: build, tag, push." in listed.stdout
    toggled = cli(fake, project, "run", "/skills disable pr-review")
    assert "Skill `pr-review` disabled (user settings:" in toggled.stdout
    settings = json.loads((_private_home / ".gemini" / "settings.json").read_text())
    assert settings == {"skills": {"disabled": ["pr-review"]}}
    assert "- `pr-review` (user, disabled)" in cli(fake, project, "run", "/skills list").stdout
    assert fake.generation_requests() == []
