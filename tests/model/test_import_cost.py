"""Importing the model and retry modules must not pull in google.genai (start-up budget)."""

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
