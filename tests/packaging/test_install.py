"""Installing agent-lsp the ways the README tells users to: ``uv tool install`` and ``pipx install`` from the project.

Both run in a private HOME with their own tool and bin folders, and the installed command must work: print its
version and answer a prompt on the replay model (which imports the agent core and its dependencies).
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import agent_lsp
from tests.replay_lines import text_line

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _version() -> str:
    return agent_lsp.__version__


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "PIPX_", "VIRTUAL_ENV"))}
    # No agent-lsp reachable except the one the installer puts in its bin folder.
    path = [d for d in env.get("PATH", "").split(os.pathsep) if d and not (Path(d) / "agent-lsp").exists()]
    env.update(HOME=str(tmp / "home"), PATH=os.pathsep.join(path), **extra)
    (tmp / "home").mkdir(exist_ok=True)
    return env


def _run(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 300) -> str:
    proc = subprocess.run(
        args, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )
    output = f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert proc.returncode == 0, f"{' '.join(args)} failed ({proc.returncode})\n{output}"
    return proc.stdout


def _check_command(exe: Path, tmp: Path, env: dict[str, str]) -> None:
    assert exe.is_file(), f"{exe} was not installed"
    assert _run([str(exe), "--version"], env, tmp).strip() == f"agent-lsp {_version()}"
    script = tmp / "replay.jsonl"
    script.write_text(json.dumps(text_line("Installed and ", "answering.")) + "\n")
    project = tmp / "project"
    project.mkdir()
    out = _run(
        [str(exe), "run", "--fake-responses", str(script), "say hello"],
        {**env, "AGENT_LSP_HOME": str(tmp / "state")},
        project,
        timeout=120,
    )
    assert "Installed and answering." in out


def test_uv_tool_install_from_the_checkout(tmp_path: Path) -> None:
    uv = shutil.which("uv", path=str(BIN)) or pytest.fail("uv is missing: make install (it is a dev dependency)")
    env = _env(
        tmp_path,
        UV_TOOL_DIR=str(tmp_path / "tools"),
        UV_TOOL_BIN_DIR=str(tmp_path / "bin"),
        UV_PYTHON_DOWNLOADS="never",
        UV_NO_CONFIG="1",
    )
    _run([uv, "tool", "install", "--python", sys.executable, str(REPO)], env, tmp_path)
    _check_command(tmp_path / "bin" / "agent-lsp", tmp_path, env)


def test_pipx_install_of_the_wheel(tmp_path: Path, project_wheel: Path) -> None:
    pipx = shutil.which("pipx", path=str(BIN)) or pytest.fail("pipx is missing: make install (it is a dev dependency)")
    env = _env(
        tmp_path,
        PIPX_HOME=str(tmp_path / "pipx"),
        PIPX_BIN_DIR=str(tmp_path / "bin"),
        PIPX_MAN_DIR=str(tmp_path / "man"),
    )
    _run([pipx, "install", "--python", sys.executable, str(project_wheel)], env, tmp_path)
    _check_command(tmp_path / "bin" / "agent-lsp", tmp_path, env)


def _requirements(meta: str) -> dict[str, str]:
    """Runtime Requires-Dist of a METADATA text: normalised name → the whole requirement."""
    out: dict[str, str] = {}
    for line in meta.splitlines():
        if line.startswith("Requires-Dist:") and "extra ==" not in line:
            req = line.split(":", 1)[1].strip()
            name = re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0]
            out[re.sub(r"[-_.]+", "-", name).lower()] = req
    return out


def _imported_top_level_modules() -> set[str]:
    """Every top-level module agent_lsp imports, anywhere in a module (lazy imports included)."""
    found: set[str] = set()
    for file in (REPO / "agent_lsp").rglob("*.py"):
        if "demo" in file.relative_to(REPO / "agent_lsp").parts:
            continue
        for node in ast.walk(ast.parse(file.read_text(), str(file))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names) - {"agent_lsp", "__future__"}


def test_the_wheel_ships_the_license_and_declares_every_imported_package(project_wheel: Path) -> None:
    with zipfile.ZipFile(project_wheel) as whl:
        names = whl.namelist()
        meta = whl.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names
    assert "License-Expression: Apache-2.0" in meta
    runtime = _requirements(meta)
    assert runtime["mcp"].startswith("mcp<3,>=2"), "mcp 1.x has no mcp_types: no MCP server would connect"
    assert "agent-client-protocol" not in runtime, "only the tests import the ACP SDK"
    owners = importlib.metadata.packages_distributions()
    for module in sorted(_imported_top_level_modules()):
        dists = {re.sub(r"[-_.]+", "-", d).lower() for d in owners.get(module, [])}
        assert dists, f"agent_lsp imports {module}, which no installed distribution provides"
        assert dists & runtime.keys(), f"agent_lsp imports {module} (from {sorted(dists)}) but does not declare it"
