"""The agent as the ACP Registry starts it: ``uvx --from agent-lsp-server==<version> agent-lsp acp``, word for word
from registry/agent-lsp/agent.json, with a fresh HOME and nothing of this checkout on PATH.

The package comes from a local index: the sdist and wheel that ``uv build`` makes from a clean copy of the checkout
(exactly the files git would commit), in a folder uv reads as ``UV_FIND_LINKS`` (an environment variable, as an
editor could set, so the command line stays the registry's); its dependencies come from PyPI through uv's cache.
Each launch, once from the wheel and once built from the sdist, is driven by the ACP SDK's client and answers a
prompt from the fake Gemini server on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import text_block

import agent_lsp
from tests.acp.editor import EditorClient, spawn_agent
from tests.fakes.fake_gemini import FakeGemini
from tests.replay_lines import text_line

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# uv's cache outlives the test's HOME, so the dependencies download once per machine, not once per run.
UV_CACHE = Path(
    os.environ.get("UV_CACHE_DIR") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "uv"
)


def _registry_command() -> list[str]:
    uvx = json.loads((REPO / "registry" / "agent-lsp" / "agent.json").read_text(encoding="utf-8"))["distribution"]
    spec = uvx["uvx"]
    # How ACP clients run a uvx entry that names its command (the registry's format: `cmd` is optional).
    return ["uvx", "--from", spec["package"], spec["cmd"], *spec.get("args", [])]


def _clean_copy(dest: Path) -> Path:
    """The files git would commit (tracked, and new files not ignored), copied: no venv, no build output."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def _uv_env(home: Path, **extra: str) -> dict[str, str]:
    # No agent-lsp reachable on PATH: only what uvx installs can answer.
    path = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d and not (Path(d) / "agent-lsp").exists()]
    # Nothing of the caller's uv settings, venv or model credentials: only what the editor passes (``extra``).
    dropped = ("UV_", "VIRTUAL_ENV", "PYTHON", "GEMINI_", "GOOGLE_", "OPENAI_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    env.update(
        HOME=str(home),
        PATH=os.pathsep.join([str(home / "uv-bin"), *path]),
        UV_CACHE_DIR=str(UV_CACHE),
        UV_NO_CONFIG="1",
        UV_PYTHON_DOWNLOADS="never",
        UV_PYTHON=sys.executable,
        **extra,
    )
    return env


@pytest.fixture(scope="module")
def local_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the sdist and the wheel (built from that sdist) of a clean copy of the checkout."""
    uv = shutil.which("uv", path=str(BIN)) or pytest.fail("uv is missing: make install (it is a dev dependency)")
    root = tmp_path_factory.mktemp("release")
    source = _clean_copy(root / "source")
    index = root / "index"
    proc = subprocess.run(
        [uv, "build", "--out-dir", str(index), str(source)],
        env=_uv_env(root),
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, f"uv build failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    version = agent_lsp.__version__
    built = sorted(p.name for p in index.glob("agent_lsp_server-*"))  # uv adds a .gitignore
    assert built == [f"agent_lsp_server-{version}-py3-none-any.whl", f"agent_lsp_server-{version}.tar.gz"], built
    return index


async def _launch_and_prompt(home: Path, project: Path, env: dict[str, str]) -> tuple[Any, str, str]:
    """Initialize, open a session and prompt once; the agent's info, stop reason and message text."""
    editor = EditorClient()
    command = _registry_command()
    async with spawn_agent(editor, command, env=env, cwd=project, observers=[editor.observe]) as (conn, _proc):
        init = await conn.initialize(protocol_version=1, client_capabilities=editor.capabilities())
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("Say hello")])
    editor.checker.assert_clean()
    updates = editor.updates(session.session_id)
    text = "".join(u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk")
    return init.agent_info, response.stop_reason, text


def _uvx_on_path(home: Path) -> None:
    """uv and uvx, and nothing else from the venv, in the fresh HOME's bin folder."""
    (home / "uv-bin").mkdir(parents=True)
    for tool in ("uv", "uvx"):
        found = shutil.which(tool, path=str(BIN)) or pytest.fail(f"{tool} is missing: make install")
        (home / "uv-bin" / Path(found).name).symlink_to(found)


@pytest.mark.timeout(900)
@pytest.mark.parametrize("build", ["wheel", "sdist"])
async def test_the_registry_command_answers_a_prompt(local_index: Path, tmp_path: Path, build: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    _uvx_on_path(home)
    project = tmp_path / "project"
    project.mkdir()
    (project / "README.md").write_text("# A project\n", encoding="utf-8")
    extra = {"UV_FIND_LINKS": str(local_index), "UV_REFRESH_PACKAGE": "agent-lsp-server"}
    if build == "sdist":
        extra["UV_NO_BINARY_PACKAGE"] = "agent-lsp-server"  # uv builds the sdist itself, as from an sdist-only index
    with FakeGemini() as fake:
        fake.push(text_line("Hello from ", "the registry's agent."))
        env = _uv_env(home, GEMINI_API_KEY="test-key-not-real", GOOGLE_GEMINI_BASE_URL=fake.url, **extra)
        info, stop, text = await _launch_and_prompt(home, project, env)
        assert fake.remaining == 0
    assert info.name == "agent-lsp" and info.version == agent_lsp.__version__
    assert stop == "end_turn"
    # A new user's folder is not trusted yet: the agent says so once, then answers.
    assert text.endswith("Hello from the registry's agent.") and "Workspace not trusted" in text
    assert not (project / ".gemini").exists() and not (project / ".agent-lsp").exists(), "nothing left in the project"
