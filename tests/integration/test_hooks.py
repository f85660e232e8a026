"""Gemini CLI hooks from the headless command line: real hook scripts configured in a scratch HOME (and a
project's .gemini/settings.json), the real google-genai client against the fake Gemini server, whose recorded
requests show what the model was told."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_lsp.untrusted import wrap_untrusted
from tests.fakes.fake_gemini import FakeGemini
from tests.replay_lines import call_line, text_line


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n")
    return root


def hook_script(home: Path, name: str, body: str) -> str:
    """A Python hook script; returns the command that runs it."""
    path = home / "hooks" / f"{name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("import json, os, sys\nevent = json.load(sys.stdin)\n" + body)
    return f"{sys.executable} {path}"


def settings(where: Path, hooks: dict[str, Any], **more: Any) -> None:
    path = where / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks, **more}))


def one(command: str, matcher: str | None = None, **extra: Any) -> list[dict[str, Any]]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **extra}]}
    if matcher is not None:
        group["matcher"] = matcher
    return [group]


def run(fake: FakeGemini, project: Path, *args: str, trusted: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "AGENT_LSP_TRUST"))}
    env.update({"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url})
    env["AGENT_LSP_TRUST_WORKSPACE"] = "true" if trusted else "false"
    return subprocess.run(
        [sys.executable, "-m", "agent_lsp", "run", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
        stdin=subprocess.DEVNULL,
    )


def requests(fake: FakeGemini) -> list[list[dict[str, Any]]]:
    return [r.body["contents"] for r in fake.generation_requests()]


def texts(contents: list[dict[str, Any]]) -> str:
    return "\n".join(p.get("text", "") for c in contents for p in c["parts"])


def responses(contents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [p["functionResponse"]["response"] for c in contents for p in c["parts"] if "functionResponse" in p]


def test_before_tool_blocks_with_a_reason_the_model_reads(fake: FakeGemini, project: Path, _private_home: Path) -> None:
    guard = hook_script(
        _private_home,
        "guard",
        "assert event['hook_event_name'] == 'BeforeTool' and event['cwd'] and event['session_id']\n"
        "if 'rm ' in event['tool_input'].get('command', ''):\n"
        "    print(json.dumps({'decision': 'deny', 'reason': 'no deleting in this repo'}))\n"
        "else:\n"
        "    print(json.dumps({'decision': 'allow'}))\n",
    )
    settings(_private_home, {"BeforeTool": one(guard, "run_shell_command")})
    fake.push(call_line("run_shell_command", {"command": "rm a.txt"}), text_line("I will not delete it."))
    result = run(fake, project, "--approval-mode", "yolo", "delete a.txt")
    assert result.returncode == 0, result.stderr
    assert (project / "a.txt").exists()
    [answer] = responses(requests(fake)[1])
    assert answer == {"error": "Tool execution blocked: no deleting in this repo"}


def test_before_tool_rewrites_the_input_and_the_model_is_told(
    fake: FakeGemini, project: Path, _private_home: Path
) -> None:
    stamp = hook_script(
        _private_home,
        "stamp",
        "content = event['tool_input']['content']\n"
        "print(json.dumps({'hookSpecificOutput': {'tool_input': {'content': '# reviewed\\n' + content}}}))\n",
    )
    reader = hook_script(_private_home, "reader", "open(os.environ['GEMINI_PROJECT_DIR'] + '/READ-HOOK', 'w')\n")
    settings(_private_home, {"BeforeTool": [*one(stamp, "write_.*"), *one(reader, "read_.*")]})
    fake.push(call_line("write_file", {"file_path": "b.txt", "content": "beta\n"}), text_line("Written."))
    result = run(fake, project, "--approval-mode", "yolo", "write b.txt")
    assert result.returncode == 0, result.stderr
    assert (project / "b.txt").read_text() == "# reviewed\nbeta\n"
    assert not (project / "READ-HOOK").exists(), "a read_.* matcher fired for write_file"
    [answer] = responses(requests(fake)[1])
    assert answer["output"].endswith(
        "\n\n[System] Tool input parameters (content) were modified by a hook before execution."
    )


def test_after_tool_adds_context_and_can_hide_a_result(fake: FakeGemini, project: Path, _private_home: Path) -> None:
    after = hook_script(
        _private_home,
        "after",
        "assert 'alpha' in event['tool_response']['llmContent']\n"
        "if event['tool_input']['file_path'].endswith('a.txt'):\n"
        "    print(json.dumps({'hookSpecificOutput': {'additionalContext': 'a.txt is generated'}}))\n"
        "else:\n"
        "    sys.stderr.write('secret file'); sys.exit(2)\n",
    )
    (project / "s.txt").write_text("alpha secret\n")
    settings(_private_home, {"AfterTool": one(after, "read_file")})
    fake.push(
        call_line("read_file", {"file_path": "a.txt"}),
        call_line("read_file", {"file_path": "s.txt"}),
        text_line("Done."),
    )
    result = run(fake, project, "read the files")
    assert result.returncode == 0, result.stderr
    first, second = (responses(r)[-1] for r in requests(fake)[1:])
    framed = wrap_untrusted("a.txt is generated", source="AfterTool hook")
    assert first["output"].endswith(f"\n\n<hook_context>{framed}</hook_context>")
    assert second == {"error": "Tool result blocked: secret file"}


def test_before_agent_adds_context_or_blocks_the_prompt(fake: FakeGemini, project: Path, _private_home: Path) -> None:
    gate = hook_script(
        _private_home,
        "gate",
        "if 'password' in event['prompt']:\n"
        "    print(json.dumps({'decision': 'deny', 'reason': 'prompts must not carry passwords'}))\n"
        "else:\n"
        "    print(json.dumps({'hookSpecificOutput': {'additionalContext': 'Branch: main'}}))\n",
    )
    settings(_private_home, {"BeforeAgent": one(gate)})
    fake.push(text_line("ok"))
    assert run(fake, project, "hello").returncode == 0
    blocked = run(fake, project, "my password is x")
    assert "The prompt was blocked by a hook: prompts must not carry passwords" in blocked.stderr
    [sent] = requests(fake)
    assert sent[-1]["parts"][-1] == {"text": "<hook_context>Branch: main</hook_context>"}
    assert "password" not in json.dumps(sent)


def test_after_agent_rejects_once_and_the_model_retries(fake: FakeGemini, project: Path, _private_home: Path) -> None:
    review = hook_script(
        _private_home,
        "review",
        "if not event['stop_hook_active'] and 'TODO' in event['prompt_response']:\n"
        "    print(json.dumps({'decision': 'deny', 'reason': 'Finish the TODO first.'}))\n",
    )
    settings(_private_home, {"AfterAgent": one(review)})
    fake.push(text_line("Draft with a TODO"), text_line("Finished answer"))
    result = run(fake, project, "write it")
    assert result.returncode == 0, result.stderr
    assert "Finished answer" in result.stdout
    second = requests(fake)[1]
    assert second[-2]["role"] == "model" and "TODO" in texts([second[-2]])
    assert second[-1] == {"role": "user", "parts": [{"text": "Finish the TODO first."}]}


def test_model_hooks_answer_instead_of_the_model_and_redact(
    fake: FakeGemini, project: Path, _private_home: Path
) -> None:
    mock = hook_script(
        _private_home,
        "mock",
        "assert event['llm_request']['messages'][-1]['content'] == 'offline question'\n"
        "print(json.dumps({'hookSpecificOutput': {'llm_response': "
        "{'candidates': [{'content': {'role': 'model', 'parts': ['canned answer with sk-123']}}]}}}))\n",
    )
    redact = hook_script(
        _private_home,
        "redact",
        "parts = event['llm_response']['candidates'][0]['content']['parts']\n"
        "clean = [p.replace('sk-123', '[REDACTED]') for p in parts]\n"
        "print(json.dumps({'hookSpecificOutput': {'llm_response': "
        "{'candidates': [{'content': {'role': 'model', 'parts': clean}}]}}}))\n",
    )
    settings(_private_home, {"BeforeModel": one(mock), "AfterModel": one(redact)})
    result = run(fake, project, "offline question")
    assert result.returncode == 0, result.stderr
    assert "canned answer with [REDACTED]" in result.stdout and "sk-123" not in result.stdout
    assert fake.generation_requests() == []


def test_session_start_end_and_pre_compress(fake: FakeGemini, project: Path, _private_home: Path) -> None:
    log = _private_home / "events.log"
    record = hook_script(
        _private_home,
        "record",
        f"open({str(log)!r}, 'a').write(event['hook_event_name'] + ' ' + "
        "str(event.get('source') or event.get('reason') or event.get('trigger') or event.get('notification_type'))"
        " + '\\n')\n"
        "if event['hook_event_name'] == 'SessionStart':\n"
        "    print(json.dumps({'systemMessage': 'hooks are on', "
        "'hookSpecificOutput': {'additionalContext': 'Sprint goal: parser'}}))\n",
    )
    hooks = {e: one(record) for e in ("SessionStart", "SessionEnd", "PreCompress")}
    settings(_private_home, hooks)
    fake.push(call_line("run_shell_command", {"command": "touch x"}), text_line("Nobody approved it."))
    result = run(fake, project, "make x")  # headless: the shell is not offered, the model's call fails
    assert result.returncode == 0, result.stderr
    assert "hooks are on" in result.stderr
    assert not (project / "x").exists()
    assert requests(fake)[0][-1]["parts"][0] == {"text": "<hook_context>Sprint goal: parser</hook_context>"}
    assert run(fake, project, "/compress").returncode == 0
    assert log.read_text().splitlines() == [
        "SessionStart startup",
        "SessionEnd exit",
        "SessionStart startup",
        "PreCompress manual",
        "SessionEnd exit",
    ]


def test_failing_hooks_are_notices_and_the_turn_goes_on(fake: FakeGemini, project: Path, _private_home: Path) -> None:
    crash = hook_script(_private_home, "crash", "raise SystemExit('boom')\n")  # exit 1 with text: a warning
    slow = hook_script(_private_home, "slow", "import time; time.sleep(30)\n")
    hooks = {
        "BeforeAgent": [
            {
                "hooks": [
                    {"type": "command", "command": crash, "name": "crasher"},
                    {"type": "command", "command": slow, "name": "sleeper", "timeout": 300},
                    {"type": "command", "command": "/nonexistent/hook-binary", "name": "missing"},
                ]
            }
        ],
        "BeforeToolSelection": one("true"),
        "BeforeTool": [{"matcher": "x", "hooks": [{"type": "prompt"}]}],
    }
    settings(_private_home, hooks)
    fake.push(text_line("still answered"))
    result = run(fake, project, "hello")
    assert result.returncode == 0, result.stderr
    assert "still answered" in result.stdout
    assert "Warning: boom" in result.stderr
    assert "BeforeAgent hook 'sleeper' failed: timed out after 300 ms" in result.stderr
    assert "Warning: bash: line 1: /nonexistent/hook-binary: No such file or directory" in result.stderr
    assert "Hooks for 'BeforeToolSelection' are ignored" in result.stderr
    assert "hooks.BeforeTool[0].hooks[0]: 'type' is not supported (only \"command\")" in result.stderr


def test_workspace_hooks_run_only_when_trusted_and_layers_add_up(
    fake: FakeGemini, project: Path, _private_home: Path
) -> None:
    mark_user = hook_script(_private_home, "user", "open('USER', 'w')\n")
    mark_project = hook_script(_private_home, "proj", "open('PROJECT', 'w')\n")
    settings(_private_home, {"BeforeAgent": one(mark_user)})
    settings(project, {"BeforeAgent": one(mark_project)})
    fake.push(text_line("one"), text_line("two"))
    assert run(fake, project, "hi", trusted=False).returncode == 0
    assert (project / "USER").exists() and not (project / "PROJECT").exists()
    (project / "USER").unlink()
    assert run(fake, project, "hi").returncode == 0
    assert (project / "USER").exists() and (project / "PROJECT").exists()


def test_disabled_hooks_and_the_master_switch(fake: FakeGemini, project: Path, _private_home: Path) -> None:
    mark = hook_script(_private_home, "mark", "open('MARK', 'w')\n")
    settings(_private_home, {"BeforeAgent": one(mark, name="marker")}, hooksConfig={"disabled": ["marker"]})
    fake.push(text_line("one"), text_line("two"))
    assert run(fake, project, "hi").returncode == 0
    assert not (project / "MARK").exists()
    settings(_private_home, {"BeforeAgent": one(mark)}, hooksConfig={"enabled": False})
    assert run(fake, project, "hi").returncode == 0
    assert not (project / "MARK").exists()
