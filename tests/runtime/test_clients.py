"""One model client per credentials, and one replay model per process, however many sessions open at once (they
open on worker threads; LSP's start-up credentials check is one more)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from agent_lsp.runtime.clients import ModelClients
from agent_lsp.runtime.options import RuntimeOptions
from tests.replay_lines import text_line


def _at_once(clients: ModelClients, env: dict[str, str] | None, threads: int = 16) -> set[int]:
    gate = threading.Barrier(threads)
    built: list[int] = []

    def ask() -> None:
        gate.wait()
        built.append(id(clients.client(env)))

    workers = [threading.Thread(target=ask) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return set(built)


def test_sessions_opening_at_once_share_the_one_replay_model(tmp_path: Path) -> None:
    script = tmp_path / "script.jsonl"
    # A long script: reading it is the window in which a second model could be made.
    script.write_text("".join(json.dumps(text_line(f"answer {i}")) + "\n" for i in range(5000)))
    for _ in range(5):
        assert len(_at_once(ModelClients(RuntimeOptions(fake_responses=script)), None)) == 1


def test_sessions_opening_at_once_share_one_client_per_credentials() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "OPENAI"))}
    env["GEMINI_API_KEY"] = "k-test"
    for _ in range(5):
        assert len(_at_once(ModelClients(RuntimeOptions(env=env)), env)) == 1
