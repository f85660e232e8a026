"""Gemini CLI extensions end to end: a real extension folder installed with ``agent-lsp extensions``, then a
session whose model (the fake Gemini server, through google-genai) sees the extension's context file, skill,
excluded tool and hook, runs its command and calls its MCP server — the server only in a trusted folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_lsp import events as ev
from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup
from tests.fakes.fake_gemini import FakeGemini
from tests.replay_lines import call_line, text_line

MCP_SERVER = Path(__file__).parent.parent / "mcp" / "servers" / "echo_server.py"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root.resolve()


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """An extension as its author ships it: manifest, context file, command, skill, hook, MCP server."""
    ext = tmp_path / "src" / "ops-kit"
    (ext / "commands" / "ops").mkdir(parents=True)
    (ext / "skills" / "runbook").mkdir(parents=True)
    (ext / "hooks").mkdir()
    manifest = {
        "name": "ops-kit",
        "version": "1.2.0",
        "description": "Runbooks and tools for the ops team",
        "contextFileName": "OPS.md",
        "excludeTools": ["run_shell_command"],
        "mcpServers": {"opsecho": {"command": sys.executable, "args": [str(MCP_SERVER), "--name", "ops-echo"]}},
        "settings": [{"name": "Region", "envVar": "OPS_REGION", "description": "Where to deploy"}],
    }
    (ext / "gemini-extension.json").write_text(json.dumps(manifest))
    (ext / "OPS.md").write_text("Deploys go through the ops pipeline only.\n")
    (ext / "commands" / "ops" / "status.toml").write_text('description = "Ops status"\nprompt = "Report ops status"\n')
    (ext / "skills" / "runbook" / "SKILL.md").write_text(
        "---\nname: runbook\ndescription: Follows the incident runbook.\n---\nStep 1: stay calm.\n"
    )
    hook = ext / "hooks" / "ctx.py"
    hook.write_text("import json\nprint(json.dumps({'hookSpecificOutput': {'additionalContext': 'on call: ana'}}))\n")
    hooks = {"hooks": {"BeforeAgent": [{"hooks": [{"type": "command", "command": f"{sys.executable} {hook}"}]}]}}
    (ext / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    return ext


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE"))}
    return subprocess.run(
        [sys.executable, "-m", "agent_lsp", "extensions", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_install_list_toggle_link_validate_uninstall(
    source: Path, project: Path, _private_home: Path, tmp_path: Path
) -> None:
    assert cli("validate", str(source), cwd=project).stdout == "Extension 'ops-kit' (1.2.0) is valid.\n"
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "gemini-extension.json").write_text('{"name": "Bad Name!", "version": "1"}')
    broken = cli("validate", str(bad), cwd=project)
    assert broken.returncode == 1 and "'name' is required" in broken.stderr

    installed = cli("install", str(source), cwd=project)
    assert installed.returncode == 0, installed.stderr
    target = _private_home / ".gemini" / "extensions" / "ops-kit"
    assert (target / "gemini-extension.json").is_file() and (target / "OPS.md").is_file()
    meta = json.loads((target / ".gemini-extension-install.json").read_text())
    assert meta == {"source": str(source.resolve()), "type": "local"}
    again = cli("install", str(source), cwd=project)
    assert again.returncode == 1 and "already installed" in again.stderr

    listed = cli("list", cwd=project).stdout
    assert "ops-kit (1.2.0)  [enabled here]" in listed and "MCP servers: opsecho" in listed
    assert "excluded tools: run_shell_command" in listed

    assert cli("disable", "ops-kit", "--scope", "workspace", cwd=project).returncode == 0
    rules = json.loads((_private_home / ".gemini" / "extensions" / "extension-enablement.json").read_text())
    assert rules == {"ops-kit": {"overrides": [f"!{project}/*"]}}  # Gemini CLI's own file and format
    assert "[disabled here]" in cli("list", cwd=project).stdout
    assert "[enabled here]" in cli("list", cwd=tmp_path).stdout  # only that workspace
    assert cli("enable", "ops-kit", "--scope", "workspace", cwd=project).returncode == 0
    assert "[enabled here]" in cli("list", cwd=project).stdout

    assert cli("uninstall", "ops-kit", cwd=project).returncode == 0
    assert not target.exists()
    linked = cli("link", str(source), cwd=project)
    assert linked.returncode == 0, linked.stderr
    assert f"linked to {source.resolve()}" in cli("list", cwd=project).stdout
    assert cli("uninstall", "nope", cwd=project).returncode == 1


async def _session(fake: FakeGemini, project: Path, *, trusted: bool, prompt: str, **opts: Any) -> Any:
    env = {
        **os.environ,
        "GEMINI_API_KEY": "test-key-not-real",
        "GOOGLE_GEMINI_BASE_URL": fake.url,
        "AGENT_LSP_TRUST_WORKSPACE": "true" if trusted else "false",
    }
    runtime = Runtime(RuntimeOptions(env=env, approval_mode="yolo" if trusted else None, **opts))
    handle = await runtime.create_session(SessionSetup(cwd=project, confirmer=AutoConfirmer(), record=False))
    try:
        if handle.mcp is not None:
            await handle.mcp.wait_ready(30)
        events = [e async for e in handle.session.send(prompt)]
        return handle, events
    finally:
        await handle.aclose()


def _declared(body: dict[str, Any]) -> set[str]:
    return {d["name"] for t in body.get("tools", []) for d in t.get("functionDeclarations", [])}


async def test_an_installed_extension_reaches_the_model(fake: FakeGemini, source: Path, project: Path) -> None:
    assert cli("install", str(source), cwd=project).returncode == 0
    fake.push(call_line("mcp_opsecho_add", {"a": 2, "b": 3}), text_line("Five."))
    handle, _ = await _session(fake, project, trusted=True, prompt="add two and three")
    first, second = (r.body for r in fake.generation_requests())
    system = "".join(p["text"] for p in first["systemInstruction"]["parts"])
    assert "Deploys go through the ops pipeline only." in system
    assert "<name>runbook</name>" in system
    declared = _declared(first)
    assert "mcp_opsecho_add" in declared and "activate_skill" in declared  # as Gemini CLI 0.61 names it
    assert "run_shell_command" not in declared  # the extension's excludeTools
    assert first["contents"][-1]["parts"][-1] == {"text": "<hook_context>on call: ana</hook_context>"}
    [answer] = [p["functionResponse"] for p in second["contents"][-1]["parts"] if "functionResponse" in p]
    assert answer["name"] == "mcp_opsecho_add" and "5" in json.dumps(answer["response"])
    commands = {c.name: c.description for c in handle.command_specs()}
    assert commands["ops:status"] == "[ops-kit] Ops status"


async def test_extension_command_runs_and_untrusted_folders_start_no_servers(
    fake: FakeGemini, source: Path, project: Path, _private_home: Path
) -> None:
    assert cli("install", str(source), cwd=project).returncode == 0
    fake.push(text_line("status ok"))
    handle, events = await _session(fake, project, trusted=False, prompt="hello")
    assert handle.mcp is None
    notices = [e.message for e in events if isinstance(e, ev.Notice)] + [n.message for n in handle.notices]
    assert any("MCP servers of extensions (ops-kit) not started: folder not trusted" in m for m in notices), notices
    assert "mcp_opsecho_add" not in _declared(fake.generation_requests()[0].body)

    fake.push(text_line("all green"))
    handle, events = await _session(fake, project, trusted=True, prompt="/ops:status")
    sent = fake.generation_requests()[-1].body["contents"][-1]["parts"]
    assert sent[0] == {"text": "Report ops status"}
    _, events = await _session(fake, project, trusted=False, prompt="/extensions")
    listed = "".join(e.text for e in events if isinstance(e, ev.Content))
    assert "- `ops-kit` 1.2.0: Runbooks and tools for the ops team; MCP servers: opsecho (not started" in listed


async def test_only_named_extensions_with_the_e_flag(fake: FakeGemini, source: Path, project: Path) -> None:
    assert cli("install", str(source), cwd=project).returncode == 0
    fake.push(text_line("one"), text_line("two"))
    await _session(fake, project, trusted=True, prompt="hi", extensions=["none"])
    handle, _ = await _session(fake, project, trusted=True, prompt="hi", extensions=["ops-kit", "missing"])
    without, with_it = (r.body for r in fake.generation_requests())
    assert "ops pipeline" not in json.dumps(without) and "ops pipeline" in json.dumps(with_it)
    assert any("Extension not found: missing" in n.message for n in handle.notices)
