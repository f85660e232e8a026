"""The project's wheel, built once per test session for the tests that install agent-lsp the way users do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def project_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``agent_lsp_server-<version>-py3-none-any.whl`` built from this checkout (``pip wheel --no-deps``)."""
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(out), str(REPO)],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, f"building the wheel failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    wheels = sorted(out.glob("agent_lsp_server-*.whl"))
    assert len(wheels) == 1, f"expected one wheel in {out}: {wheels}"
    return wheels[0]
