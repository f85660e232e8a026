"""What the start-up and throughput benches share: a server process with a private home, started as an editor
starts it (pipes both ways, stderr dropped), from its own checkout's root so ``-m agent_lsp`` runs that code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def private_env(home: Path) -> dict[str, str]:
    """The environment with a scratch home and state folder, and the workspace trusted."""
    return dict(os.environ, HOME=str(home), AGENT_LSP_HOME=str(home / "state"), AGENT_LSP_TRUST_WORKSPACE="true")


def start(argv: list[str], env: dict[str, str], cwd: Path = ROOT) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd
    )


def start_server(kind: str, *args: str, home: Path) -> subprocess.Popen[bytes]:
    """``agent-lsp acp`` or ``agent-lsp lsp`` with ``args``, from this checkout."""
    return start([sys.executable, "-m", "agent_lsp", kind, *args], private_env(home))
