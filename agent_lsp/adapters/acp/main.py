"""``agent-lsp acp``: serve ACP over stdio. ``initialize`` is answered before anything heavy is imported.

Start-up order: read the first frame with plain blocking reads; if it is ``initialize``, answer it at once
(only json and the handshake module are loaded by then); then start asyncio, warm the heavy modules in a
background thread, and serve everything else through the JSON-RPC connection.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys

from agent_lsp.adapters.acp import handshake

TYPE_CHECKING = False  # typing itself is not imported before initialize is answered
if TYPE_CHECKING:
    from typing import Any

log = logging.getLogger(__name__)
FIRST_FRAME_LIMIT = 1 << 20  # an initialize request is tiny; a longer first line is left to the connection
_WARM = (
    "agent_lsp.runtime",
    "agent_lsp.adapters.acp.agent",
    "agent_lsp.tools.builtins",
    "agent_lsp.config.loader",
    "agent_lsp.config.memory",
    "agent_lsp.store.sessions",
    "agent_lsp.core.compression",
)


def serve(args: argparse.Namespace) -> int:
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    # Anything printed by mistake must not corrupt the protocol stream: stdout is ours alone from here.
    sys.stdout = sys.stderr
    replay = getattr(args, "fake_responses", None) is not None
    if replay:
        args.fake_responses = os.path.abspath(args.fake_responses)  # sessions may run in other folders
    pending, first = _read_first_frame(stdin)
    init_params: Any = None
    if first is not None and first.get("method") == "initialize" and "id" in first and first["id"] is not None:
        init_params = first.get("params")
        problem = handshake.check_initialize(init_params)
        if problem is None:
            result = handshake.initialize_result(auth_required=handshake.auth_required(os.environ, replay=replay))
            _write(stdout, {"jsonrpc": "2.0", "id": first["id"], "result": result})
            log.debug("initialize answered on the fast path")
            first = None
        else:
            init_params = None  # let the full server answer (and explain) the bad request
    import asyncio

    try:
        return asyncio.run(_serve_async(args, stdin, stdout, pending, first, init_params))
    except KeyboardInterrupt:
        return 130


def _read_first_frame(fd: int) -> tuple[bytes, dict[str, Any] | None]:
    """(bytes read but not consumed, the first frame if it is a sound JSON-RPC message).

    Anything else (garbage, a frame too big for a handshake, input ending early) is left in the first
    element for the connection, which answers it with the right error."""
    from agent_lsp.adapters import wire

    buffer = b""
    while b"\n" not in buffer:
        if len(buffer) > FIRST_FRAME_LIMIT:
            return buffer, None
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return buffer, None
        buffer += chunk
    line, _, rest = buffer.partition(b"\n")
    message = wire.decode(line)
    if isinstance(message, wire.Rejection):
        return buffer, None
    return rest, message


def _write(fd: int, message: dict[str, Any]) -> None:
    data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _warm() -> None:
    import importlib

    for name in _WARM:
        try:
            importlib.import_module(name)
        except Exception:  # a broken optional module shows up later, where it is used
            log.debug("warming %s failed", name, exc_info=True)
    if os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_MODEL"):
        # The OpenAI-compatible provider is likely: its SDK costs about a second to import.
        from agent_lsp.model.openai_compat import warm

        warm()


async def _serve_async(
    args: argparse.Namespace,
    stdin: int,
    stdout: int,
    pending: bytes,
    first: dict[str, Any] | None,
    init_params: Any,
) -> int:
    import threading
    from pathlib import Path

    threading.Thread(target=_warm, name="acp-warm", daemon=True).start()
    from agent_lsp.adapters.acp.agent import AcpAgent, AgentOptions
    from agent_lsp.adapters.acp.jsonrpc import Connection
    from agent_lsp.adapters.acp.stdio import PipeSource, PipeWriter
    from agent_lsp.runtime import replay_delay

    fake = getattr(args, "fake_responses", None)
    fake_path = Path(fake) if fake is not None else None
    options = AgentOptions(
        fake_responses=fake_path,
        model=getattr(args, "model", None),
        approval_mode=getattr(args, "approval_mode", None),
        chunk_delay=replay_delay(os.environ),
    )
    agent = AcpAgent(options)
    if init_params is not None:
        agent.initialized(init_params)
    source, writer = PipeSource(stdin), PipeWriter(stdout)
    await source.start()
    await writer.start()
    conn = Connection(source, writer, agent.dispatch, agent.notification, pending_input=pending)
    agent.conn = conn
    if first is not None:
        conn.handle_message(first)
    try:
        await conn.serve()
    finally:
        await agent.close_all()
        writer.close()
    return 0
