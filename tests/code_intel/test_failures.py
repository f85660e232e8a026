"""Language servers that fail: one that dies is started again once and then reported, one that hangs is bounded
and reported, one that never starts says why; and an untrusted folder starts none."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

import pytest

from agent_lsp import events as ev
from agent_lsp.code_intel.catalog import ServerSpec
from agent_lsp.code_intel.pool import ServerPool
from agent_lsp.code_intel.session import PoolCodeIntel
from agent_lsp.config.settings import Settings
from agent_lsp.core.code_intel import CodeIntelError
from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.runtime.code_intel import _POOLS, build_code_intel
from agent_lsp.runtime.options import SessionSetup
from agent_lsp.workspace.filesystem import LocalFileSystem
from agent_lsp.workspace.roots import Workspace
from tests.code_intel.project import BASEDPYRIGHT, make_project, spec, user_settings


def intel_over(pool: ServerPool, server: ServerSpec, root: Path) -> PoolCodeIntel:
    return PoolCodeIntel(pool, [server], lambda: [root], LocalFileSystem().read_text)


async def test_a_server_that_dies_is_started_again_once_then_reported(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    pool = ServerPool(os.environ)
    intel = intel_over(pool, spec(BASEDPYRIGHT), root)
    use = root / "geo" / "use.py"
    try:
        assert await intel.ask("documentSymbol", use, 0, 0, "") is not None
        [first] = pool.running()
        assert first.pid is not None
        os.killpg(first.pid, signal.SIGKILL)  # the server crashes (its launcher and node)
        await asyncio.wait_for(first._process.wait(), 10)  # type: ignore[union-attr]
        answer = await intel.ask("documentSymbol", use, 0, 0, "")  # a fresh server answers
        assert answer is not None and any(s.name == "total" for s in answer.symbols)
        [second] = pool.running()
        assert second is not first and second.pid is not None
        os.killpg(second.pid, signal.SIGKILL)
        await asyncio.wait_for(second._process.wait(), 10)  # type: ignore[union-attr]
        with pytest.raises(CodeIntelError, match=r"exited \(code -9\).*restarted once already"):
            await intel.ask("documentSymbol", use, 0, 0, "")
        with pytest.raises(CodeIntelError, match="restarted once already"):  # and stays down
            await intel.diagnostics([use], after_edit=True, budget_s=1)
        assert pool.running() == []
    finally:
        await pool.aclose()


async def test_a_server_that_hangs_is_bounded_and_reported(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj")
    pool = ServerPool(os.environ)
    intel = intel_over(pool, spec(BASEDPYRIGHT), root)
    use = root / "geo" / "use.py"
    try:
        await intel.ask("documentSymbol", use, 0, 0, "")  # started and warm, within the usual bound
        [server] = pool.running()
        server.request_timeout = 2.0
        assert server.pid is not None
        os.killpg(server.pid, signal.SIGSTOP)  # alive, and answering nothing
        with pytest.raises(CodeIntelError, match="did not answer textDocument/hover within 2 s"):
            await intel.ask("hover", use, 4, 11, "")
        # Diagnostics after an edit wait no longer than their budget, and say they are incomplete.
        use.write_text(use.read_text() + "\nbroken = nope\n")
        report = await intel.diagnostics([use], after_edit=True, budget_s=0.5)
        assert report.pending == {use}
        os.killpg(server.pid, signal.SIGCONT)
    finally:
        await pool.aclose()
    assert pool.running() == []


async def test_a_server_that_never_answers_initialize_is_killed_and_reported(tmp_path: Path) -> None:
    sleeper = ServerSpec("python", sys.executable, ("-c", "import time; time.sleep(600)"), ("*.py",))
    pool = ServerPool(os.environ, start_timeout=1.0)
    intel = intel_over(pool, sleeper, tmp_path)
    (tmp_path / "a.py").write_text("x = 1\n")
    try:
        with pytest.raises(CodeIntelError, match="did not answer initialize within 1 s"):
            await intel.ask("hover", tmp_path / "a.py", 0, 0, "")
        assert pool.running() == []  # killed, not left behind
    finally:
        await pool.aclose()


async def test_a_server_that_exits_at_once_says_what_it_said(tmp_path: Path) -> None:
    code = "import sys; sys.stderr.write('missing runtime: node not found\\n'); sys.exit(3)"
    crasher = ServerSpec("python", sys.executable, ("-c", code), ("*.py",))
    pool = ServerPool(os.environ)
    intel = intel_over(pool, crasher, tmp_path)
    (tmp_path / "a.py").write_text("x = 1\n")
    try:
        for _ in range(2):  # the first start and the one retry
            with pytest.raises(CodeIntelError, match=r"exited \(code 3\); it last said: missing runtime"):
                await intel.ask("hover", tmp_path / "a.py", 0, 0, "")
        with pytest.raises(CodeIntelError, match="restarted once already"):
            await intel.ask("hover", tmp_path / "a.py", 0, 0, "")
    finally:
        await pool.aclose()


async def test_an_untrusted_folder_starts_no_server(tmp_path: Path) -> None:
    user_settings(Path(os.environ["HOME"]))
    root = make_project(tmp_path / "proj")
    workspace = Workspace([root])
    loop = asyncio.get_running_loop()

    def build(trusted: bool) -> object:
        notices: list[ev.Notice] = []
        return build_code_intel(
            setup=SessionSetup(cwd=root, confirmer=AutoConfirmer()),
            settings=Settings.model_validate({}),
            trusted=trusted,
            env=os.environ,
            workspace=workspace,
            fs=LocalFileSystem(),
            loop=loop,
            notices=notices,
        )

    assert build(False) is None
    assert loop not in _POOLS  # not even a pool was made
    trusted = build(True)
    assert isinstance(trusted, PoolCodeIntel)
    assert [s.language for s in trusted.specs] == ["python", "typescript"]
    assert _POOLS[loop].running() == []  # made lazily: nothing runs until a question
    del _POOLS[loop]


async def test_lsp_servers_come_from_user_settings_only(tmp_path: Path) -> None:
    """A repository's own .gemini/settings.json cannot name a language server (it would choose a program)."""
    root = make_project(tmp_path / "proj")
    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").write_text(
        json.dumps({"lspServers": {"python": {"command": sys.executable, "args": ["-c", "print(1)"]}}})
    )
    from agent_lsp.config.loader import load_settings, read_user_settings

    merged = load_settings([root], trusted=True).settings
    assert "python" in merged.lsp_servers  # the workspace said it…
    assert read_user_settings().lsp_servers == {}  # …and the servers are read from user settings alone


async def test_a_question_while_the_server_initializes_waits_for_its_capabilities(tmp_path: Path) -> None:
    """The flake seen under load ("… does not support goToImplementation"): a question asked while another one's
    server was still initializing got the server before its initialize answer, so with no capabilities yet."""
    root = tmp_path / "proj"
    root.mkdir()
    source = root / "a.py"
    source.write_text("class A: ...\n")
    script = Path(__file__).with_name("slow_start_server.py")
    slow = ServerSpec("python", sys.executable, (str(script), str(root)), ("*.py",), operations=("goToImplementation",))
    pool = ServerPool(os.environ)
    intel = intel_over(pool, slow, root)
    try:
        first = asyncio.create_task(intel.ask("goToImplementation", source, 1, 7, ""))
        while True:  # until it is spawned, and waiting for its initialize answer
            if (root / "initialize-seen").exists():
                break
            await asyncio.sleep(0.02)
        second = asyncio.create_task(intel.ask("goToImplementation", source, 1, 7, ""))
        await asyncio.sleep(0)  # the second question reaches the pool while the server is initializing
        (root / "gate").write_text("")
        for answer in await asyncio.gather(first, second):
            assert answer is not None and [loc.path for loc in answer.locations] == [source]
        assert len(pool.running()) == 1
    finally:
        await pool.aclose()
