"""The agent's keys kept from every child over the headless front end too: a shell command, a background command,
a hook and an MCP server, all from the user's own settings, in a real ``agent-lsp -p`` run."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.hostile import KEYS
from tests.integration.test_cli import run_cli, script


def test_headless_children_never_see_the_agents_keys(tmp_path: Path, _private_home: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    hook = [{"hooks": [{"type": "command", "command": f"env > {out / 'hook.env'}"}]}]
    settings = {
        "hooks": {"SessionStart": hook},
        "mcpServers": {"probe": {"command": "bash", "args": ["-c", f"env > {out / 'mcp.env'}"]}},
    }
    (_private_home / ".gemini").mkdir(exist_ok=True)
    (_private_home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    replay = script(
        tmp_path / "s.jsonl",
        [{"functionCall": {"name": "run_shell_command", "args": {"command": f"env > {out / 'shell.env'}"}}}],
        [
            {
                "functionCall": {
                    "name": "run_shell_command",
                    "args": {"command": f"env > {out / 'bg.env'}", "is_background": True},
                }
            }
        ],
        [{"text": "done"}],
    )
    env = {**KEYS, "AGENT_LSP_TRUST_WORKSPACE": "true", "VISIBLE_TO_CHILDREN": "yes", "HOME": str(_private_home)}
    result = run_cli(
        "--approval-mode", "yolo", "--fake-responses", str(replay), "-p", "env", cwd=project, env_extra=env
    )
    assert result.returncode == 0, result.stderr
    for name in ("shell", "bg", "hook", "mcp"):
        text = (out / f"{name}.env").read_text()
        assert "VISIBLE_TO_CHILDREN=yes" in text, name
        assert [k for k, v in KEYS.items() if v in text or f"{k}=" in text] == [], name
    assert os.environ.get("GEMINI_API_KEY") != KEYS["GEMINI_API_KEY"]  # the test's own process was not changed
