"""Importing the model and retry modules must not pull in google.genai or openai (start-up budget)."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import agent_lsp.model.gemini, agent_lsp.model.auth, agent_lsp.core.retry
heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('httpx', 'httpx2', 'pydantic') or m.startswith('google'))
print(' '.join(heavy))
"""


def test_import_does_not_load_the_sdk() -> None:
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "", f"heavy modules imported: {done.stdout.strip()}"


OPENAI_CHECK = """
import asyncio, sys, tempfile, pathlib, json
import agent_lsp.model.openai_compat, agent_lsp.model.provider, agent_lsp.model.router
from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.runtime import Runtime, RuntimeOptions, SessionSetup

tmp = pathlib.Path(tempfile.mkdtemp())
script = tmp / "s.jsonl"
turn = {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}]}
script.write_text(json.dumps({"method": "generateContentStream", "response": [turn]}) + "\\n")

async def main():
    runtime = Runtime(RuntimeOptions(fake_responses=script))
    handle = await runtime.create_session(SessionSetup(cwd=tmp, confirmer=AutoConfirmer(), record=False))
    [e async for e in handle.session.send("hi")]
    await handle.aclose()

asyncio.run(main())
print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] == 'openai')))
"""


def test_a_session_without_the_openai_provider_never_imports_openai() -> None:
    done = subprocess.run([sys.executable, "-c", OPENAI_CHECK], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "", f"openai imported: {done.stdout.strip()[:200]}"
