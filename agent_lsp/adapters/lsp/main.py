"""``agent-lsp lsp``: answer ``initialize`` at once, then hand the connection to the pygls server.

The protocol library alone takes longer to import than the start-up budget allows, so the first frame is
read and, when it is ``initialize``, answered here with the standard library only. The frame is then
handed to pygls (which sets up its state from it and whose duplicate answer is dropped), and the same
frame reader carries on with everything the editor sent meanwhile.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, BinaryIO

from agent_lsp.adapters import wire
from agent_lsp.adapters.lsp.framing import FrameReader


def _write_frame(stream: BinaryIO, message: dict[str, Any]) -> None:
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def serve(args: argparse.Namespace) -> int:
    stdout = sys.stdout.buffer
    sys.stdout = sys.stderr  # anything printed by mistake must not corrupt the protocol stream
    # Our own reader on fd 0, not sys.stdin: the interpreter closes that at exit, and a thread may still be
    # blocked reading it (which would abort the process instead of letting it exit).
    stdin = open(sys.stdin.fileno(), "rb", closefd=False)  # noqa: SIM115 - lives as long as the process
    reader = FrameReader(stdin)
    item = reader.next()
    if item is None:
        return 0  # the editor closed the pipe before saying anything
    first: dict[str, Any] | wire.Rejection = wire.decode(item) if isinstance(item, bytes) else item
    preanswered: dict[str, Any] | None = None
    if (
        isinstance(first, dict)
        and first.get("method") == "initialize"
        and first.get("id") is not None
        and isinstance(first.get("params"), dict)
    ):
        from agent_lsp.adapters.lsp.capabilities import initialize_result

        _write_frame(stdout, {"jsonrpc": "2.0", "id": first["id"], "result": initialize_result()})
        preanswered = first

    from agent_lsp.adapters.lsp.server import run
    from agent_lsp.adapters.lsp.service import ServiceOptions

    options = ServiceOptions(fake_responses=args.fake_responses, model=args.model, approval_mode=args.approval_mode)
    return run(options, reader=reader, stdout=stdout, first=first, preanswered=preanswered, debug=bool(args.debug))
