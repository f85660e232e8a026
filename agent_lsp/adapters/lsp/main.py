"""``agent-lsp lsp``: serve the Language Server Protocol on stdio with the pygls server (server.py)."""

from __future__ import annotations

import argparse
import sys


def serve(args: argparse.Namespace) -> int:
    stdout = sys.stdout.buffer
    sys.stdout = sys.stderr  # anything printed by mistake must not corrupt the protocol stream
    # Our own reader on fd 0, not sys.stdin: the interpreter closes that at exit, and a thread may still be
    # blocked reading it (which would abort the process instead of letting it exit).
    stdin = open(sys.stdin.fileno(), "rb", closefd=False)  # noqa: SIM115 - lives as long as the process
    from agent_lsp.adapters.launch import LaunchOptions
    from agent_lsp.adapters.lsp.framing import FrameReader
    from agent_lsp.adapters.lsp.server import run

    options = LaunchOptions.from_args(args)
    return run(options, reader=FrameReader(stdin), stdout=stdout, debug=bool(args.debug))
