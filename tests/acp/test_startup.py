"""Start-up: ``initialize`` is answered before asyncio or anything heavy is imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_initialize_is_answered_before_heavy_imports(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    script = tmp_path / "empty.jsonl"
    script.write_text("")
    frame = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n'
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "agent_lsp", "acp", "--debug", "--fake-responses", str(script)],
        input=frame,
        capture_output=True,
        env=env,
        cwd=project,
        timeout=60,
        check=True,
    )
    assert done.stdout.startswith(b'{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,')
    lines = done.stderr.decode().splitlines()
    answered = next(i for i, line in enumerate(lines) if "initialize answered on the fast path" in line)
    before = {line.rsplit("|", 1)[-1].strip() for line in lines[:answered] if line.startswith("import time:")}
    assert "agent_lsp.adapters.acp.handshake" in before
    heavy = {"asyncio", "typing", "dataclasses", "pydantic", "agent_lsp.runtime", "agent_lsp.events", "acp", "mcp"}
    assert not before & heavy, before & heavy
