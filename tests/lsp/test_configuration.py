"""The server's Configuration: one Runtime per server, whichever thread asks for it first."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from agent_lsp.adapters.launch import LaunchOptions
from agent_lsp.adapters.lsp.configuration import Configuration
from agent_lsp.adapters.lsp.server import PyglsClient


def test_threads_asking_at_once_share_one_runtime(tmp_path: Path) -> None:
    # What start-up does: the credentials check after `initialized` builds the runtime on a worker thread while
    # the first agent/newSession asks for it on the event loop.
    replay = tmp_path / "none.jsonl"
    replay.write_text("")
    config = Configuration(PyglsClient(), LaunchOptions(fake_responses=replay))
    start = threading.Barrier(16)

    def ask() -> int:
        start.wait()
        return id(config.runtime())

    with ThreadPoolExecutor(16) as pool:
        built = set(pool.map(lambda _: ask(), range(16)))
    assert len(built) == 1 and built == {id(config.runtime())}
