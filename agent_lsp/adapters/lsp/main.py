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
    from agent_lsp.adapters.lsp.framing import FrameReader
    from agent_lsp.adapters.lsp.server import run
    from agent_lsp.adapters.lsp.service import ServiceOptions
    from agent_lsp.vocabulary import parse_mode

    mode = parse_mode(args.approval_mode, "--approval-mode") if args.approval_mode else None
    options = ServiceOptions(fake_responses=args.fake_responses, model=args.model, approval_mode=mode)
    return run(options, reader=FrameReader(stdin), stdout=stdout, debug=bool(args.debug))
