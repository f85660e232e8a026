"""``agent-lsp acp``: serve ACP over stdin/stdout through one JSON-RPC connection, from the first frame on.

There is no start-up shortcut: ``initialize`` goes through the connection like every other request. Answering
it by hand before asyncio loaded (and importing the runtime in a thread meanwhile) made ``initialize`` alone
~55 ms sooner, but not what a user feels: against that shortcut, this path's spawn → ``session/new`` answered
differs by +4 ms (paired median; quartiles -32..+42 ms, around 270 ms) and spawn → first chunk by +8 ms
(-42..+58, around 640 ms), with the same CPU time (30 interleaved rounds on the 2-core machine, 2026-11-23, as
bench/acp_startup.py and bench/acp_first_chunk.py measure). The runtime loads with the first session.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_lsp.adapters.acp.access import AgentOptions


def serve(args: argparse.Namespace) -> int:
    from agent_lsp.adapters.acp.access import AgentOptions
    from agent_lsp.adapters.launch import LaunchOptions

    options = AgentOptions(LaunchOptions.from_args(args))
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    # Anything printed by mistake must not corrupt the protocol stream: stdout is ours alone from here.
    sys.stdout = sys.stderr
    try:
        return asyncio.run(_serve(options, stdin, stdout))
    except KeyboardInterrupt:
        return 130
    except asyncio.CancelledError:  # SIGTERM: sessions were closed on the way out
        from agent_lsp.stopping import SIGTERM_EXIT

        return SIGTERM_EXIT


async def _serve(options: AgentOptions, stdin: int, stdout: int) -> int:
    from agent_lsp.adapters.acp.agent import AcpAgent
    from agent_lsp.adapters.acp.jsonrpc import Connection
    from agent_lsp.adapters.acp.stdio import PipeSource, PipeWriter
    from agent_lsp.stopping import cancel_on_sigterm

    cancel_on_sigterm()
    source, writer = PipeSource(stdin), PipeWriter(stdout)
    await source.start()
    await writer.start()
    conn = Connection(source, writer)
    agent = AcpAgent(options, conn)
    try:
        await conn.serve(agent)
    finally:
        await agent.close_all()
        # The language servers sessions started end with the connection; with no session built, the runtime
        # (and its pool) was never imported, and closing must not import it (initialize stays light).
        pool = sys.modules.get("agent_lsp.runtime.code_intel")
        if pool is not None:
            await pool.close_language_servers()
        writer.close()
    return 0
