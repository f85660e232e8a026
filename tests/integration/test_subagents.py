"""invoke_agent end to end from the headless command line: the real google-genai client against the fake Gemini
server, whose recorded requests show each subagent's own history, system prompt and tools."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_gemini import FakeGemini
from tests.integration.test_custom_commands import run, write
from tests.replay_lines import call_line, text_line


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "app.py").write_text("def main():\n    return 42\n")
    return root


def tools_of(body: dict[str, Any]) -> list[str]:
    return [d["name"] for t in body.get("tools", []) for d in t["functionDeclarations"]]


def system_of(body: dict[str, Any]) -> str:
    return "".join(p.get("text", "") for p in body["systemInstruction"]["parts"])


def last_response(body: dict[str, Any]) -> dict[str, Any]:
    return dict(body["contents"][-1]["parts"][0]["functionResponse"]["response"])


REPORT = {
    "SummaryOfFindings": "main() returns 42.",
    "ExplorationTrace": ["read app.py"],
    "RelevantLocations": [{"FilePath": "app.py", "Reasoning": "entry point", "KeySymbols": ["main"]}],
}


def test_the_investigator_runs_in_its_own_history_with_read_only_tools(fake: FakeGemini, project: Path) -> None:
    fake.push(
        call_line("invoke_agent", {"agent_name": "codebase_investigator", "prompt": "What does main return?"}),
        call_line("read_file", {"file_path": "app.py"}),
        call_line("complete_task", {"report": REPORT}),
        text_line("It returns 42."),
    )
    result = run(fake, project, "-o", "json", "explain main")
    assert result.returncode == 0, result.stderr
    main1, sub1, sub2, main2 = (r.body for r in fake.generation_requests())
    assert "# Available Sub-Agents" in system_of(main1) and "- codebase_investigator -> " in system_of(main1)
    # Its own system prompt, tools and history: the main conversation is not in it.
    assert "Codebase Investigator" in system_of(sub1)
    assert sorted(tools_of(sub1)) == ["complete_task", "glob", "grep_search", "list_directory", "read_file"]
    [first] = sub1["contents"]
    assert "<objective>\nWhat does main return?\n</objective>" in first["parts"][0]["text"]
    assert "explain main" not in json.dumps(sub1["contents"])
    assert "return 42" in json.dumps(last_response(sub2))
    # The main model reads the report; the subagent's steps stay out of its history.
    answer = last_response(main2)["output"]
    assert answer.startswith("Subagent 'codebase_investigator' finished.\nTermination Reason: GOAL\nResult:\n")
    assert json.loads(answer.split("Result:\n", 1)[1]) == REPORT
    assert len(main2["contents"]) == 3
    assert json.loads(result.stdout)["response"] == "It returns 42."
    # The headless stats count the subagent's two calls too; roles.main is the main conversation's two.
    models = json.loads(result.stdout)["stats"]["models"].values()
    assert sum(m["api"]["totalRequests"] for m in models) == 4
    assert sum(m["roles"]["main"]["totalRequests"] for m in models) == 2


def test_a_user_agent_gets_its_tools_its_prompt_and_a_last_turn_at_its_limit(
    fake: FakeGemini, project: Path, _private_home: Path
) -> None:
    write(
        _private_home / ".gemini" / "agents" / "reader.md",
        "---\nname: reader\ndescription: Reads files.\ntools:\n  - read_file\nmax_turns: 1\n---\nYou only read.\n",
    )
    fake.push(
        call_line("invoke_agent", {"agent_name": "reader", "prompt": "Read app.py"}),
        call_line("read_file", {"file_path": "app.py"}),  # its one turn
        call_line("complete_task", {"result": "42"}),  # the last turn it is given at the limit
        text_line("Done."),
    )
    result = run(fake, project, "--approval-mode", "yolo", "go")
    assert result.returncode == 0, result.stderr
    _main1, sub1, sub2, main2 = (r.body for r in fake.generation_requests())
    assert system_of(sub1) == "You only read."
    assert sorted(tools_of(sub1)) == ["complete_task", "read_file"]
    assert sub1["contents"][0]["parts"][0]["text"] == "Read app.py"
    assert "used all of your turns" in sub2["contents"][-1]["parts"][-1]["text"]
    assert "Termination Reason: GOAL\nResult:\n42" in last_response(main2)["output"]


def test_a_subagent_that_never_finishes_is_an_error_the_model_reads(fake: FakeGemini, project: Path) -> None:
    fake.push(
        call_line("invoke_agent", {"agent_name": "generalist", "prompt": "Do it"}),
        text_line("I did it."),  # no complete_task
        text_line("Still no complete_task."),  # nor in its last turn
        text_line("The subagent failed."),
    )
    result = run(fake, project, "go")
    assert result.returncode == 0, result.stderr
    _main1, sub1, _sub2, main2 = (r.body for r in fake.generation_requests())
    # The generalist has the session's tools (as the policy declares them headless), never invoke_agent.
    assert "invoke_agent" not in tools_of(sub1) and "read_file" in tools_of(sub1)
    assert "run_shell_command" not in tools_of(sub1)
    error = last_response(main2)["error"]
    assert "did not finish: it stopped without handing in a result" in error and "I did it." not in error
    assert "Still no complete_task." in error


def test_an_unknown_agent_is_a_validation_error(fake: FakeGemini, project: Path) -> None:
    fake.push(call_line("invoke_agent", {"agent_name": "nobody", "prompt": "x"}), text_line("ok"))
    assert run(fake, project, "go").returncode == 0
    assert "Subagent 'nobody' not found" in last_response(fake.generation_requests()[1].body)["error"]


def test_cli_help_answers_from_our_documentation(fake: FakeGemini, project: Path) -> None:
    fake.push(
        call_line("invoke_agent", {"agent_name": "cli_help", "prompt": "How do I turn off a subagent?"}),
        call_line("get_internal_docs", {}),
        call_line("get_internal_docs", {"path": "extending.md"}),
        call_line("complete_task", {"report": {"answer": "Set enabled to false.", "sources": ["extending.md"] * 2}}),
        text_line("Set agents.overrides.<name>.enabled to false."),
    )
    result = run(fake, project, "how do I turn off a subagent?")
    assert result.returncode == 0, result.stderr
    main1, sub1, sub2, sub3, main2 = (r.body for r in fake.generation_requests())
    assert "- cli_help -> " in system_of(main1)
    # Its own tool (not the session's) over agent-lsp's docs, and the runtime facts in its prompt.
    assert sorted(tools_of(sub1)) == ["complete_task", "get_internal_docs"]
    assert re.search(r"agent-lsp \d+\.\d+\.\d+, model \S+, today is \d{4}-\d\d-\d\d\.", system_of(sub1))
    assert "<question>\nHow do I turn off a subagent?\n</question>" in sub1["contents"][0]["parts"][0]["text"]
    assert "- extending.md" in last_response(sub2)["output"] and "- tools.md" in last_response(sub2)["output"]
    assert "## Subagents" in last_response(sub3)["output"]
    answer = last_response(main2)["output"]
    assert answer.endswith("Result:\nSet enabled to false.\n\n**Sources:**\n- extending.md")


def test_agents_settings_turn_agents_off(fake: FakeGemini, project: Path) -> None:
    fake.push(text_line("a"), text_line("b"))
    overrides = {"generalist": {"enabled": False}, "cli_help": {"enabled": False}}
    assert run(fake, project, "hi", settings={"agents": {"overrides": overrides}}).returncode == 0
    assert run(fake, project, "hi", settings={"experimental": {"enableAgents": False}}).returncode == 0
    some, none = (r.body for r in fake.generation_requests())
    assert "- codebase_investigator -> " in system_of(some) and "- generalist -> " not in system_of(some)
    assert "invoke_agent" in tools_of(some)
    assert "invoke_agent" not in tools_of(none) and "Available Sub-Agents" not in system_of(none)
