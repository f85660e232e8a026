"""Plan mode from the headless command line, as Gemini CLI 0.61 runs it: the model may write only its plan (a
Markdown file in the project's plans folder), and exit_plan_mode with that file leaves plan mode (approved at once
with nobody to ask, into yolo)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_lsp.config.paths import project_id
from tests.fakes.fake_gemini import FakeGemini
from tests.integration.test_gemini_cli_parity import agent, answer_to, call, chunk, declared


def test_plan_mode_writes_only_its_plan_and_exit_plan_mode_starts_the_work(project: Path, home: Path) -> None:
    plans = (home / ".agent-lsp" / "projects" / project_id(project) / "plans").resolve()
    plan = str(plans / "refactor.md")
    script: list[Any] = [
        chunk(call("write_file", file_path=str(project / "app.py"), content="x = 1\n")),
        chunk(call("write_file", file_path=plan, content="# Plan\n1. Do it.\n")),
        chunk(call("exit_plan_mode", plan_filename="refactor.md")),
        chunk({"text": "Starting."}),
    ]
    with FakeGemini(script) as fake:
        result = agent("-p", "plan a refactor", "--approval-mode", "plan", cwd=project, home=home, fake=fake)
        first, second, _third, fourth = fake.generation_requests()
    assert result.returncode == 0, result.stderr
    names = declared(first)
    assert {"write_file", "replace", "exit_plan_mode"} <= set(names) and "run_shell_command" not in names
    assert "enter_plan_mode" not in names
    assert str(plans) in "".join(p["text"] for p in first.body["systemInstruction"]["parts"])
    assert "cannot modify source code" in answer_to(second)["error"]
    assert not (project / "app.py").exists()
    assert (plans / "refactor.md").read_text() == "# Plan\n1. Do it.\n"
    approved = answer_to(fourth)["output"]
    assert approved.startswith("Plan approved. Switching to YOLO mode") and "refactor.md" in approved
    # Out of plan mode: the write tools and the shell are back, exit_plan_mode is gone.
    assert "run_shell_command" in declared(fourth) and "exit_plan_mode" not in declared(fourth)
    assert "enter_plan_mode" in declared(fourth)


def test_exit_plan_mode_needs_a_written_plan(project: Path, home: Path) -> None:
    script = [chunk(call("exit_plan_mode", plan_filename="../escape.md")), chunk({"text": "ok"})]
    with FakeGemini(script) as fake:
        result = agent("-p", "plan", "--approval-mode", "plan", cwd=project, home=home, fake=fake)
        _first, second = fake.generation_requests()
    assert result.returncode == 0, result.stderr
    assert "must be a file name like 'feature-x.md'" in answer_to(second)["error"]
