"""Gemini CLI 0.61 parity of the headless command line, end to end: ``agent-lsp`` as a subprocess talking to the
fake Gemini server through the real google-genai client (or the replay model), with a temp HOME.

The expected texts and shapes were captured from Gemini CLI 0.61.0 run against the same fake server.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_gemini import FakeGemini

ECHO_SERVER = Path(__file__).parent.parent / "mcp" / "servers" / "echo_server.py"


def chunk(*parts: dict[str, Any], prompt: int = 10, out: int = 5) -> list[dict[str, Any]]:
    usage = {"promptTokenCount": prompt, "candidatesTokenCount": out, "totalTokenCount": prompt + out}
    return [
        {
            "candidates": [{"content": {"role": "model", "parts": list(parts)}, "finishReason": "STOP"}],
            "usageMetadata": usage,
        }
    ]


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"functionCall": {"name": name, "args": args}}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    (h / ".gemini").mkdir(parents=True)
    return h


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    return root


def agent(
    *args: str,
    cwd: Path,
    home: Path,
    fake: FakeGemini | None = None,
    stdin: str | None = None,
    trust: bool = True,
    extra_env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "AGENT_LSP_TRUST"))}
    env.update({"HOME": str(home), "AGENT_LSP_HOME": str(home / ".agent-lsp")})
    if trust:
        env["AGENT_LSP_TRUST_WORKSPACE"] = "true"
    if fake is not None:
        env.update({"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url})
    env.update(extra_env or {})
    return subprocess.run(
        [sys.executable, "-m", "agent_lsp", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=90,
    )


def declared(request: Any) -> list[str]:
    return [d["name"] for t in request.body.get("tools", []) for d in t.get("functionDeclarations", [])]


def answer_to(request: Any) -> dict[str, Any]:
    """The functionResponse.response of the last turn in a request."""
    part = request.body["contents"][-1]["parts"][0]
    return dict(part["functionResponse"]["response"])


# -- (1) headless approvals -------------------------------------------------------------------------------


def test_default_mode_headless_hides_write_tools_and_the_model_goes_on(project: Path, home: Path) -> None:
    with FakeGemini(
        [chunk(call("run_shell_command", command="echo hi")), chunk({"text": "Could not run it."})]
    ) as fake:
        result = agent("-p", "run echo hi", "-m", "gemini-2.5-flash", "-o", "json", cwd=project, home=home, fake=fake)
        first, second = fake.generation_requests()
    assert result.returncode == 0, result.stderr
    # As Gemini CLI 0.61: with nobody to confirm, tools that would ask are denied, so they are not declared...
    names = declared(first)
    assert "read_file" in names and "grep_search" in names
    assert not {"run_shell_command", "write_file", "replace", "web_fetch"} & set(names)
    # ...and a call to one anyway gets Gemini CLI's "not found" answer, which the model reads and goes on.
    error = answer_to(second)["error"]
    assert error.startswith('Tool "run_shell_command" not found. Did you mean one of: ')
    payload = json.loads(result.stdout)
    assert payload["response"] == "Could not run it." and "error" not in payload
    assert payload["stats"]["tools"]["byName"]["run_shell_command"]["fail"] == 1


def test_policy_ask_and_deny_are_errors_the_model_reads(project: Path, home: Path, tmp_path: Path) -> None:
    policy = tmp_path / "team.toml"
    policy.write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git push"\ndecision = "deny"\npriority = 500\n'
        'denyMessage = "Pushing is for humans."\n\n'
        '[[rule]]\ntoolName = "run_shell_command"\ncommandRegex = "echo .*"\ndecision = "ask_user"\npriority = 400\n'
    )
    script = [
        chunk(call("run_shell_command", command="git status && git push origin main")),
        chunk(call("run_shell_command", command="echo hello")),
        chunk(call("run_shell_command", command="printf ok")),
        chunk({"text": "Done."}),
    ]
    with FakeGemini(script) as fake:
        result = agent("--yolo", "--policy", str(policy), "-p", "go", cwd=project, home=home, fake=fake)
        requests = fake.generation_requests()
    assert result.returncode == 0, result.stderr
    assert answer_to(requests[1]) == {"error": "Tool execution denied by policy. Pushing is for humans."}
    assert answer_to(requests[2]) == {
        "error": 'Tool execution for "Shell" requires user confirmation, which is not supported in '
        "non-interactive mode."
    }
    ran = answer_to(requests[3])["output"]
    assert ran.startswith("<untrusted_context>\nOutput: ok\nProcess Group PGID: ")
    assert result.stdout.strip() == "Done."


def test_tools_allowed_and_exclude_map_into_the_same_engine(project: Path, home: Path) -> None:
    settings = {"tools": {"allowed": ["run_shell_command(echo)"], "exclude": ["glob"]}}
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    script = [chunk(call("run_shell_command", command="echo allowed")), chunk(call("run_shell_command", command="ls"))]
    script.append(chunk({"text": "ok"}))
    with FakeGemini(script) as fake:
        result = agent("-p", "go", cwd=project, home=home, fake=fake)
        requests = fake.generation_requests()
    assert result.returncode == 0, result.stderr
    names = declared(requests[0])
    assert "run_shell_command" in names and "glob" not in names
    assert "Output: allowed" in answer_to(requests[1])["output"]
    # A narrowed allowance denies the tool's other commands, as Gemini CLI's policy does.
    assert answer_to(requests[2]) == {"error": "Tool execution denied by policy."}


# -- (4) policy files -------------------------------------------------------------------------------------


def test_user_policy_tiers_and_broken_files(project: Path, home: Path) -> None:
    policies = home / ".gemini" / "policies"
    policies.mkdir()
    (policies / "ok.toml").write_text(
        '[[rule]]\ntoolName = "write_file"\ndecision = "allow"\npriority = 100\n\n'
        '[[rule]]\ntoolName = "read_file"\nargsPattern = "secret"\ndecision = "deny"\npriority = 100\n'
    )
    (policies / "broken.toml").write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ndecision = "allow"\npriority = 5000\n\n'
        '[[rule]]\ntoolName = "replace"\ndecision = "deny"\npriority = 10\nargsPattern = "(unclosed"\n'
    )
    workspace_policies = project / ".gemini" / "policies"
    workspace_policies.mkdir(parents=True)
    (workspace_policies / "ws.toml").write_text(
        '[[rule]]\ntoolName = "write_file"\ndecision = "deny"\npriority = 999\n'
    )
    script = [
        chunk(call("write_file", file_path="b.txt", content="new\n")),
        chunk(call("read_file", file_path="secret.txt")),
        chunk({"text": "ok"}),
    ]
    with FakeGemini(script) as fake:
        result = agent("-p", "go", cwd=project, home=home, fake=fake)
        requests = fake.generation_requests()
    assert result.returncode == 0, result.stderr
    # The user tier outranks the workspace tier whatever the priorities inside each.
    assert (project / "b.txt").read_text() == "new\n"
    assert answer_to(requests[2]) == {"error": "Tool execution denied by policy."}
    broken = policies / "broken.toml"
    assert f"Policy file error in {broken}, rule #1: priority must be an integer from 0 to 999" in result.stderr
    assert f"Policy file error in {broken}, rule #2: argsPattern '(unclosed' is not a valid regular" in result.stderr
    # The broken allow rule is ignored (the shell stays undeclared); the broken deny still denies all of replace.
    assert not {"run_shell_command", "replace"} & set(declared(requests[0]))


def test_unreadable_policy_file_makes_everything_ask(project: Path, home: Path) -> None:
    policies = home / ".gemini" / "policies"
    policies.mkdir()
    (policies / "typo.toml").write_text('[[rule]\ntoolName = "read_file"\n')
    with FakeGemini([chunk(call("read_file", file_path="a.txt")), chunk({"text": "ok"})]) as fake:
        result = agent("--yolo", "-p", "go", cwd=project, home=home, fake=fake)
        requests = fake.generation_requests()
    assert result.returncode == 0, result.stderr
    assert f"Policy file error in {policies / 'typo.toml'}" in result.stderr
    assert "every tool call asks for approval until this file is fixed" in result.stderr
    assert "requires user confirmation" in answer_to(requests[1])["error"]


def test_workspace_policies_only_in_trusted_folders(project: Path, home: Path) -> None:
    (project / ".gemini" / "policies").mkdir(parents=True)
    (project / ".gemini" / "policies" / "p.toml").write_text(
        '[[rule]]\ntoolName = "list_directory"\ndecision = "deny"\npriority = 1\n'
    )
    with FakeGemini([chunk({"text": "a"}), chunk({"text": "b"})]) as fake:
        agent("-p", "go", cwd=project, home=home, fake=fake, trust=False)
        agent("-p", "go", cwd=project, home=home, fake=fake, trust=True)
        untrusted, trusted = fake.generation_requests()
    assert "list_directory" in declared(untrusted)
    assert "list_directory" not in declared(trusted)


# -- (2) output formats -----------------------------------------------------------------------------------


def test_stream_json_events(project: Path, home: Path) -> None:
    script = [chunk(call("read_file", file_path="a.txt")), chunk({"text": "It says one."})]
    with FakeGemini(script) as fake:
        result = agent(
            "-p", "read a.txt", "-o", "stream-json", "-m", "gemini-2.5-flash", cwd=project, home=home, fake=fake
        )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert all(not line.startswith("{ ") and ": " not in line[:20] for line in lines)  # compact, like JSON.stringify
    events = [json.loads(line) for line in lines]
    assert [e["type"] for e in events] == ["init", "message", "tool_use", "tool_result", "message", "result"]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", e["timestamp"]) for e in events)
    init, user, use, res, text, final = events
    assert init["model"] == "gemini-2.5-flash" and init["session_id"]
    assert user == {**user, "role": "user", "content": "read a.txt"} and "delta" not in user
    assert use["tool_name"] == "read_file" and use["parameters"] == {"file_path": "a.txt"}
    assert res["tool_id"] == use["tool_id"] and res["status"] == "success"
    assert text["role"] == "assistant" and text["delta"] is True
    assert final["status"] == "success" and "error" not in final
    stats = final["stats"]
    assert set(stats) == {
        "total_tokens",
        "input_tokens",
        "output_tokens",
        "cached",
        "input",
        "duration_ms",
        "tool_calls",
        "models",
    }
    assert stats["tool_calls"] == 1 and stats["total_tokens"] == 30
    assert stats["models"]["gemini-2.5-flash"] == {
        "total_tokens": 30,
        "input_tokens": 20,
        "output_tokens": 10,
        "cached": 0,
        "input": 20,
    }


def test_stream_json_tool_errors_carry_gemini_cli_error_types(project: Path, home: Path, tmp_path: Path) -> None:
    """The ``error.type`` of each failed tool_result is the call's ToolErrorType, as Gemini CLI 0.61 printed for
    this very script (denied, asked with nobody to ask, unknown tool, missing file, missing parameter)."""
    policy = tmp_path / "team.toml"
    policy.write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git push"\ndecision = "deny"\npriority = 500\n\n'
        '[[rule]]\ntoolName = "run_shell_command"\ncommandRegex = "echo .*"\ndecision = "ask_user"\npriority = 400\n'
    )
    script = [
        chunk(call("run_shell_command", command="git push origin main")),
        chunk(call("run_shell_command", command="echo hello")),
        chunk(call("nope_tool", x=1)),
        chunk(call("read_file", file_path="missing.txt")),
        chunk(call("read_file")),
        chunk({"text": "Done."}),
    ]
    with FakeGemini(script) as fake:
        result = agent(
            "--yolo", "--policy", str(policy), "-p", "go", "-o", "stream-json", cwd=project, home=home, fake=fake
        )
    assert result.returncode == 0, result.stderr
    results = [e for e in map(json.loads, result.stdout.splitlines()) if e["type"] == "tool_result"]
    assert [(e["status"], e["error"]["type"]) for e in results] == [
        ("error", "policy_violation"),
        ("error", "unhandled_exception"),
        ("error", "tool_not_registered"),
        ("error", "file_not_found"),
        ("error", "invalid_tool_params"),
    ]


def test_json_output_shape_and_file_stats(project: Path, home: Path) -> None:
    edit = call("write_file", file_path="a.txt", content="one\ntwo\nthree\n")
    with FakeGemini([chunk(edit), chunk({"text": "Edited."})]) as fake:
        result = agent("-y", "-o", "json", "-m", "gemini-2.5-pro", "edit", cwd=project, home=home, fake=fake)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert list(out) == ["session_id", "response", "stats"]
    model = out["stats"]["models"]["gemini-2.5-pro"]
    # Gemini CLI's keys, and our documented estimate beside them (a reader of Gemini CLI's shape ignores it).
    assert set(model) == {"api", "tokens", "roles", "cost"}
    assert model["cost"]["currency"] == "USD" and model["cost"]["amount"] > 0
    assert set(model["api"]) == {"totalRequests", "totalErrors", "totalLatencyMs", "errorsByType"}
    assert model["tokens"] == {
        "input": 20,
        "prompt": 20,
        "candidates": 10,
        "total": 30,
        "cached": 0,
        "thoughts": 0,
        "tool": 0,
    }
    assert model["roles"]["main"]["totalRequests"] == 2
    tools = out["stats"]["tools"]
    assert set(tools) == {"totalCalls", "totalSuccess", "totalFail", "totalDurationMs", "totalDecisions", "byName"}
    assert tools["totalDecisions"] == {"accept": 0, "reject": 0, "modify": 0, "auto_accept": 0}
    assert set(tools["byName"]["write_file"]) == {"count", "success", "fail", "durationMs", "decisions"}
    assert out["stats"]["files"] == {"totalLinesAdded": 2, "totalLinesRemoved": 0}


def test_api_error_exit_codes_follow_gemini_cli(project: Path, home: Path) -> None:
    with FakeGemini([{"status": 400, "message": "bad request"}] * 3) as fake:
        text = agent("-p", "hi", cwd=project, home=home, fake=fake)
        as_json = agent("-p", "hi", "-o", "json", cwd=project, home=home, fake=fake)
        stream = agent("-p", "hi", "-o", "stream-json", cwd=project, home=home, fake=fake)
    assert text.returncode == 1 and "bad request" in text.stderr
    # Gemini CLI exits with the HTTP status in the JSON formats (the OS keeps its low byte).
    assert as_json.returncode == 400 % 256 and stream.returncode == 400 % 256
    payload = json.loads(as_json.stdout)
    assert list(payload) == ["session_id", "error"] and payload["error"]["code"] == 400
    last = json.loads(stream.stdout.splitlines()[-1])
    assert last["type"] == "result" and last["status"] == "error" and "bad request" in last["error"]["message"]


# -- (3) the command line ---------------------------------------------------------------------------------


def test_prompt_is_appended_to_piped_stdin_and_positional_works(project: Path, home: Path) -> None:
    with FakeGemini([chunk({"text": "a"}), chunk({"text": "b"})]) as fake:
        piped = agent("-p", "summarise it", cwd=project, home=home, fake=fake, stdin="log line 1\nlog line 2\n")
        positional = agent("what", "is", "this", cwd=project, home=home, fake=fake)
        first, second = fake.generation_requests()
    assert piped.returncode == 0 and positional.returncode == 0, piped.stderr + positional.stderr
    assert first.body["contents"][-1]["parts"][0]["text"] == "log line 1\nlog line 2\n\n\nsummarise it"
    assert second.body["contents"][-1]["parts"][0]["text"] == "what is this"


def test_usage_errors(project: Path, home: Path) -> None:
    no_input = agent(cwd=project, home=home, stdin="")
    assert no_input.returncode == 42 and "No input provided via stdin" in no_input.stderr
    both = agent("-p", "x", "y", cwd=project, home=home)
    assert both.returncode == 1 and "Cannot use both a positional prompt and the --prompt (-p) flag" in both.stderr
    modes = agent("-y", "--approval-mode", "plan", "-p", "x", cwd=project, home=home)
    assert modes.returncode == 1 and "Cannot use both --yolo (-y) and --approval-mode together" in modes.stderr
    no_key = agent("-p", "x", cwd=project, home=home)
    assert no_key.returncode == 41 and "GEMINI_API_KEY" in no_key.stderr
    version = agent("-v", cwd=project, home=home)
    assert version.returncode == 0 and version.stdout.startswith("agent-lsp ")


def test_sessions_list_resume_and_delete(project: Path, home: Path) -> None:
    with FakeGemini([chunk({"text": "first answer"}), chunk({"text": "second answer"}), chunk({"text": "x"})]) as fake:
        agent("-p", "first prompt", cwd=project, home=home, fake=fake)
        agent("-p", "second prompt", "--session-id", "my-session", cwd=project, home=home, fake=fake)
        listed = agent("--list-sessions", cwd=project, home=home)
        resumed = agent("-r", "1", "-p", "again", cwd=project, home=home, fake=fake)
        resume_request = fake.generation_requests()[-1]
        bad = agent("-r", "7", "-p", "again", cwd=project, home=home, fake=fake)
        deleted = agent("--delete-session", "my-session", cwd=project, home=home)
        after = agent("--list-sessions", cwd=project, home=home)
    lines = listed.stdout.strip().splitlines()
    assert lines[0] == "Available sessions for this project (2):"
    assert re.fullmatch(r"  1\. first prompt \(Just now\) \[\w+\]", lines[1]), lines
    assert lines[2] == "  2. second prompt (Just now) [my-session]"
    assert resumed.returncode == 0, resumed.stderr
    texts = [p.get("text") for c in resume_request.body["contents"] for p in c["parts"]]
    assert "first prompt" in texts and "again" in texts and "second prompt" not in texts
    assert bad.returncode == 42 and 'Invalid session identifier "7"' in bad.stderr
    assert deleted.stdout.startswith("Deleted session 2: second prompt")
    assert "(1):" in after.stdout and "my-session" not in after.stdout


def test_include_directories_and_list_extensions(project: Path, home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "b.txt").write_text("two\n")
    ext = home / ".gemini" / "extensions" / "hello"
    ext.mkdir(parents=True)
    (ext / "gemini-extension.json").write_text('{"name": "hello", "version": "1.2.0"}')
    with FakeGemini([chunk(call("read_file", file_path=str(other / "b.txt"))), chunk({"text": "ok"})]) as fake:
        result = agent("--include-directories", str(other), "-p", "read", cwd=project, home=home, fake=fake)
        requests = fake.generation_requests()
    assert result.returncode == 0, result.stderr
    assert "two" in answer_to(requests[1])["output"]
    listed = agent("-l", cwd=project, home=home)
    assert listed.stdout.splitlines() == ["Installed extensions:", "- hello (v1.2.0)"]
    unknown = agent("-e", "nope", "-p", "x", cwd=project, home=home)
    assert unknown.returncode == 42 and "nope" in unknown.stderr


def test_subcommands_still_work(project: Path, home: Path, tmp_path: Path) -> None:
    replay = tmp_path / "r.jsonl"
    replay.write_text(json.dumps({"method": "generateContentStream", "response": chunk({"text": "replayed"})}) + "\n")
    result = agent("run", "--fake-responses", str(replay), "hello", cwd=project, home=home)
    assert result.returncode == 0 and result.stdout.strip() == "replayed"
    helped = agent("acp", "--help", cwd=project, home=home)
    assert helped.returncode == 0 and "--fake-responses" in helped.stdout


# -- (5) MCP before the first request, (6) request details ------------------------------------------------


def test_headless_waits_for_mcp_and_sends_gemini_cli_generation_config(project: Path, home: Path) -> None:
    servers = {"calc": {"command": sys.executable, "args": [str(ECHO_SERVER), "--name", "calc"], "trust": True}}
    (home / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": servers}))
    with FakeGemini([chunk(call("mcp_calc_add", a=2, b=3)), chunk({"text": "5"})]) as fake:
        result = agent("-p", "add", "-m", "gemini-2.5-flash", cwd=project, home=home, fake=fake)
        first, second = fake.generation_requests()
        with FakeGemini([chunk({"text": "hi"})]) as fake3:
            agent("-p", "hi", cwd=project, home=home, fake=fake3)
            default_model = fake3.generation_requests()[0]
    assert result.returncode == 0, result.stderr
    assert "mcp_calc_add" in declared(first)  # the server was connected before the first request went out
    assert "5" in json.dumps(answer_to(second))
    assert first.body["generationConfig"] == {
        "temperature": 1,
        "topP": 0.95,
        "topK": 64,
        "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 8192},
    }
    # Gemini CLI 0.61's default is "auto"; without a router we send what it resolves to, with a thinking level.
    assert default_model.model == "gemini-3.1-pro-preview"
    assert default_model.body["generationConfig"]["thinkingConfig"] == {
        "includeThoughts": True,
        "thinkingLevel": "HIGH",
    }
    decl = {d["name"]: d for t in first.body["tools"] for d in t.get("functionDeclarations", [])}
    assert all("parametersJsonSchema" in d for d in decl.values())


def test_session_turn_limit_exits_53(project: Path, home: Path, tmp_path: Path) -> None:
    (home / ".gemini" / "settings.json").write_text(json.dumps({"model": {"maxSessionTurns": 1}}))
    replay = tmp_path / "r.jsonl"
    lines = [chunk(call("read_file", file_path="a.txt")), chunk({"text": "never"})]
    replay.write_text("".join(json.dumps({"method": "generateContentStream", "response": c}) + "\n" for c in lines))
    result = agent("--fake-responses", str(replay), "-o", "json", "-p", "go", cwd=project, home=home)
    assert result.returncode == 53, result.stderr
    error = json.loads(result.stdout)["error"]
    assert error["type"] == "FatalTurnLimitedError" and "maxSessionTurns" in error["message"]
