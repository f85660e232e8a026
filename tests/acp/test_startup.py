"""Start-up: the first frame goes through the one JSON-RPC connection like any other, and answering
``initialize`` loads no runtime (credentials may still change with ``authenticate``; the first session pays)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.acp.harness import SchemaChecker


def test_first_frames_go_through_the_connection_and_initialize_loads_no_runtime(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    script = tmp_path / "empty.jsonl"
    script.write_text("")
    frames = (
        b"this is not json\n"  # a broken first frame is answered like any other, and the connection goes on
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n'
    )
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "agent_lsp", "acp", "--fake-responses", str(script)],
        input=frames,
        capture_output=True,
        env=env,
        cwd=project,
        timeout=60,
        check=True,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    checker = SchemaChecker()  # every frame validated (tests/conftest.py fails the test on a problem)
    checker.sent_methods[1] = "initialize"
    for answer in answers:
        checker.incoming(answer)
    assert [a["id"] for a in answers] == [None, 1]
    assert answers[0]["error"]["code"] == -32700
    assert answers[1]["result"]["protocolVersion"] == 1 and answers[1]["result"]["authMethods"] == []
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.decode().splitlines() if "import time:" in line}
    assert "agent_lsp.adapters.acp.agent" in imported
    heavy = {"agent_lsp.runtime", "agent_lsp.config.settings", "pydantic", "google.genai", "mcp", "acp"}
    assert not imported & heavy, imported & heavy
