"""``agent/newSession`` never waits on the network: with an OpenAI-compatible endpoint the answer offers the current
model, and the endpoint's own list follows as an ``agent/update`` carrying ACP's ``config_option_update``, after the
answer (frames read in order from a real server subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.acp_schema import validate
from tests.lsp.conftest import server_env
from tests.lsp.frames import frame, next_frame, open_session


class HeldModels(ThreadingHTTPServer):
    """An endpoint whose ``GET /v1/models`` is held until the test releases it."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.asked = threading.Event()
        self.release = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: HeldModels

    def do_GET(self) -> None:
        self.server.asked.set()
        self.server.release.wait(30)
        data = [{"id": m, "object": "model", "created": 0, "owned_by": "test"} for m in ("coder", "large")]
        body = json.dumps({"object": "list", "data": data}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[HeldModels]:
    server = HeldModels()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()


def test_the_endpoints_models_follow_the_answer(tmp_path: Path, endpoint: HeldModels) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = {
        **server_env(tmp_path),
        "OPENAI_BASE_URL": endpoint.url,
        "OPENAI_MODEL": "coder",
        "OPENAI_API_KEY": "sk-test",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_lsp", "lsp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=project,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        open_session(proc.stdin, project)
        frames: list[dict[str, Any]] = []
        while not any(f.get("id") == 2 for f in frames):
            frames.append(next_frame(proc.stdout))
        answer = next(f for f in frames if f.get("id") == 2)["result"]
        # Answered while the endpoint still holds the list (an agent waiting for it would have given up at 2 s
        # and never sent the update below).
        assert [m["modelId"] for m in answer["models"]["availableModels"]] == ["coder"]
        assert not endpoint.release.is_set()
        assert endpoint.asked.wait(20)
        endpoint.release.set()
        while True:
            sent = next_frame(proc.stdout)
            frames.append(sent)
            if sent.get("method") == "agent/update" and sent["params"]["update"]["sessionUpdate"] == (
                "config_option_update"
            ):
                break
        update = sent["params"]
        assert update["sessionId"] == answer["sessionId"]
        validate("SessionNotification", update)
        picker = next(o for o in update["update"]["configOptions"] if o["id"] == "model")
        assert picker["currentValue"] == "coder"
        assert [o["value"] for o in picker["options"]] == ["coder", "large"]
        proc.stdin.write(frame({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}))
        proc.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
        proc.stdin.flush()
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
