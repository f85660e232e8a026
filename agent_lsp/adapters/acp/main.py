"""``agent-lsp acp``: serve ACP over stdin/stdout through one JSON-RPC connection, from the first frame on.

There is no start-up shortcut: ``initialize`` goes through the connection like every other request. Answering
it by hand before anything loaded (and warming imports in a thread) made ``initialize`` alone fast (~48 ms
against ~190 ms) but changed nothing a user feels: spawn → ``session/new`` answered was 413–417 ms and spawn →
first chunk 840–863 ms with and without it, in every combination (bench/acp_startup.py, bench/acp_first_chunk.py
and an interleaved A/B run of 15 spawns each on the 2-core machine, 2026-11-23). The runtime loads when the
first session is created, which is where its cost is paid either way.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_lsp.adapters.acp.access import AgentOptions


def serve(args: argparse.Namespace) -> int:
    from agent_lsp.adapters.acp.access import AgentOptions
    from agent_lsp.vocabulary import parse_mode

    fake = getattr(args, "fake_responses", None)
    mode = getattr(args, "approval_mode", None)
    options = AgentOptions(
        fake_responses=Path(fake).absolute() if fake is not None else None,  # sessions may run in other folders
        model=getattr(args, "model", None),
        approval_mode=parse_mode(mode, "--approval-mode") if mode is not None else None,
    )
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    # Anything printed by mistake must not corrupt the protocol stream: stdout is ours alone from here.
    sys.stdout = sys.stderr
    try:
        return asyncio.run(_serve(options, stdin, stdout))
    except KeyboardInterrupt:
        return 130


async def _serve(options: AgentOptions, stdin: int, stdout: int) -> int:
    from agent_lsp.adapters.acp.agent import AcpAgent
    from agent_lsp.adapters.acp.jsonrpc import Connection
    from agent_lsp.adapters.acp.stdio import PipeSource, PipeWriter

    source, writer = PipeSource(stdin), PipeWriter(stdout)
    await source.start()
    await writer.start()
    conn = Connection(source, writer)
    agent = AcpAgent(options, conn)
    try:
        await conn.serve(agent)
    finally:
        await agent.close_all()
        writer.close()
    return 0
