"""Custom ``.toml`` slash commands from the headless command line: real files in a scratch HOME and project,
the real google-genai client against the fake Gemini server, whose recorded request shows the prompt sent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.fake_gemini import FakeGemini
from tests.replay_lines import text_line


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "notes.md").write_text("Remember the milk.\n")
    (root / ".geminiignore").write_text("secret.txt\n")
    (root / "secret.txt").write_text("hunter2\n")
    return root


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def run(
    fake: FakeGemini, project: Path, *args: str, trusted: bool = True, settings: dict[str, object] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "AGENT_LSP_TRUST"))}
    env.update({"GEMINI_API_KEY": "test-key-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url})
    env["AGENT_LSP_TRUST_WORKSPACE"] = "true" if trusted else "false"
    if settings is not None:
        write(Path(env["HOME"]) / ".gemini" / "settings.json", json.dumps(settings))
    return subprocess.run(
        [sys.executable, "-m", "agent_lsp", "run", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def sent_prompts(fake: FakeGemini) -> list[str]:
    """The text of the last user message of each generate request, as the model received it."""
    out = []
    for r in fake.requests:
        if r.action and "generate" in r.action.lower():
            user = [c for c in r.body["contents"] if c["role"] == "user"][-1]
            out.append("".join(p.get("text", "") for p in user["parts"]))
    return out


def user_commands(home: Path) -> Path:
    return home / ".gemini" / "commands"


def test_namespaced_command_substitutes_args(fake: FakeGemini, project: Path, _private_home: Path) -> None:
    write(
        user_commands(_private_home) / "git" / "commit.toml",
        'description = "Write a commit message"\nprompt = "Write a commit message about: {{args}}."\n',
    )
    fake.push(text_line("feat: done"))
    result = run(fake, project, "/git:commit fix the parser")
    assert result.returncode == 0, result.stderr
    assert "feat: done" in result.stdout
    assert sent_prompts(fake) == ["Write a commit message about: fix the parser."]


def test_without_args_placeholder_the_invocation_follows_a_blank_line(
    fake: FakeGemini, project: Path, _private_home: Path
) -> None:
    write(user_commands(_private_home) / "changelog.toml", 'prompt = "Update the changelog."\n')
    fake.push(text_line("ok"), text_line("ok"))
    assert run(fake, project, '/changelog 1.2.0 added "New feature"').returncode == 0
    assert run(fake, project, "/changelog").returncode == 0
    assert sent_prompts(fake) == [
        'Update the changelog.\n\n/changelog 1.2.0 added "New feature"',
        "Update the changelog.",
    ]


def test_a_name_both_the_user_and_the_workspace_use_is_renamed_for_both(
    fake: FakeGemini, project: Path, _private_home: Path
) -> None:
    """Gemini CLI 0.61's SlashCommandResolver: neither keeps the name, each is prefixed by where it comes from;
    a built-in's name stays the built-in's."""
    write(user_commands(_private_home) / "git" / "commit.toml", 'prompt = "user version"\n')
    write(project / ".gemini" / "commands" / "git" / "commit.toml", 'prompt = "project version"\n')
    write(user_commands(_private_home) / "help.toml", 'prompt = "my help"\n')
    fake.push(text_line("ok"), text_line("ok"), text_line("ok"))
    assert run(fake, project, "/user.git:commit").returncode == 0
    assert run(fake, project, "/workspace.git:commit").returncode == 0
    assert run(fake, project, "/user.help").returncode == 0
    assert sent_prompts(fake) == ["user version", "project version", "my help"]
    listed = run(fake, project, "/help").stdout
    assert "`/user.git:commit`" in listed and "`/workspace.git:commit`" in listed and "`/git:commit`" not in listed


def test_an_unknown_command_goes_to_the_model_as_text(fake: FakeGemini, project: Path, _private_home: Path) -> None:
    """As Gemini CLI 0.61 headless: a slash command nobody defined is just what the user typed."""
    fake.push(text_line("It is not a command."))
    result = run(fake, project, "/nosuch thing @notes.md")
    assert result.returncode == 0, result.stderr
    assert "Unknown command" not in result.stdout
    assert sent_prompts(fake)[0].startswith("/nosuch thing")


def test_untrusted_folder_gets_no_file_commands(fake: FakeGemini, project: Path, _private_home: Path) -> None:
    """Gemini CLI loads no file commands at all in an untrusted folder (their shell snippets would run there)."""
    write(user_commands(_private_home) / "hello.toml", 'prompt = "hi"\n')
    write(project / ".gemini" / "commands" / "evil.toml", 'prompt = "!{touch pwned}"\n')
    fake.push(text_line("ok"), text_line("ok"))
    result = run(fake, project, "/evil", trusted=False)
    assert result.returncode == 0, result.stderr
    assert not (project / "pwned").exists()
    assert run(fake, project, "/hello", trusted=False).returncode == 0
    # Not commands there: the model reads them as typed text (Gemini CLI 0.61 headless).
    assert sent_prompts(fake) == ["/evil", "/hello"]


def test_broken_toml_is_a_notice_and_the_others_still_work(
    fake: FakeGemini, project: Path, _private_home: Path
) -> None:
    broken = write(user_commands(_private_home) / "broken.toml", 'prompt = "unterminated\n')
    missing = write(user_commands(_private_home) / "noprompt.toml", 'description = "no prompt"\n')
    write(user_commands(_private_home) / "good.toml", 'prompt = "good one"\n')
    fake.push(text_line("ok"))
    result = run(fake, project, "/good")
    assert result.returncode == 0, result.stderr
    assert f"{broken} is not valid TOML" in result.stderr
    assert f"{missing} was skipped: the 'prompt' field is required." in result.stderr
    assert sent_prompts(fake) == ["good one"]


def test_file_injection_respects_ignore_files_and_the_workspace(
    fake: FakeGemini, project: Path, _private_home: Path, tmp_path: Path
) -> None:
    outside = write(tmp_path / "outside.txt", "not yours\n")
    write(
        project / ".gemini" / "commands" / "ctx.toml",
        f'prompt = "Notes: @{{notes.md}} Secret: @{{secret.txt}} Outside: @{{{outside}}} End"\n',
    )
    fake.push(text_line("ok"))
    result = run(fake, project, "/ctx")
    assert result.returncode == 0, result.stderr
    [sent] = sent_prompts(fake)
    assert sent == "Notes: Remember the milk. Secret:  Outside: @{" + str(outside) + "} End"
    assert "secret.txt}' was ignored by .gitignore or .geminiignore" in result.stderr
    assert "outside the workspace" in result.stderr
    assert "hunter2" not in sent and "not yours" not in sent


def test_shell_injection_runs_with_escaped_args_after_approval(
    fake: FakeGemini, project: Path, _private_home: Path
) -> None:
    write(
        project / ".gemini" / "commands" / "grep-code.toml",
        'prompt = """Findings for `{{args}}`:\n!{printf \'%s|\' {{args}}}\n!{false}"""\n',
    )
    fake.push(text_line("ok"))
    result = run(fake, project, "--approval-mode", "yolo", "/grep-code It's complicated; rm -rf x")
    assert result.returncode == 0, result.stderr
    assert sent_prompts(fake) == [
        "Findings for `It's complicated; rm -rf x`:\nIt's complicated; rm -rf x|\n"
        "\n[Shell command 'false' exited with code 1]"
    ]


def test_shell_injection_asks_and_a_refusal_sends_nothing(fake: FakeGemini, project: Path, _private_home: Path) -> None:
    """Headless without a terminal nobody can approve: the shell is not offered, so the snippet cannot run."""
    write(project / ".gemini" / "commands" / "status.toml", 'prompt = "!{touch ran}"\n')
    result = run(fake, project, "/status")
    assert result.returncode != 0  # as Gemini CLI 0.61: the command could not run, the run failed
    assert "/status cannot be run: it needs the shell, which this session does not offer" in result.stderr
    assert not (project / "ran").exists()
    assert sent_prompts(fake) == []


def test_shell_injection_meets_the_policy_and_the_shell_checks(
    fake: FakeGemini, project: Path, _private_home: Path
) -> None:
    write(project / ".gemini" / "commands" / "wipe.toml", 'prompt = "!{echo ok && rm -f notes.md}"\n')
    write(project / ".gemini" / "commands" / "sub.toml", 'prompt = "!{echo $(touch subst)}"\n')
    settings = {"tools": {"exclude": ["run_shell_command(rm)"]}}
    result = run(fake, project, "--approval-mode", "yolo", "/wipe", settings=settings)
    assert "Blocked command: `echo ok && rm -f notes.md`" in result.stderr
    assert (project / "notes.md").exists()
    result = run(fake, project, "--approval-mode", "yolo", "/sub", settings=settings)
    assert "Command substitution" in result.stderr
    assert not (project / "subst").exists()
    assert sent_prompts(fake) == []


def test_unbalanced_injection_is_a_clear_error(fake: FakeGemini, project: Path, _private_home: Path) -> None:
    write(project / ".gemini" / "commands" / "bad.toml", 'prompt = "!{echo {"\n')
    result = run(fake, project, "/bad")
    assert "Invalid syntax in command '/bad'" in result.stderr
    assert sent_prompts(fake) == []


def test_help_lists_custom_commands(fake: FakeGemini, project: Path, _private_home: Path) -> None:
    write(user_commands(_private_home) / "refactor" / "pure.toml", 'prompt = "x"\n')
    result = run(fake, project, "/help")
    assert "- `/refactor:pure`: Custom command from pure.toml" in result.stdout
