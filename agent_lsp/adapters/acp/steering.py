"""``_session/steering``: ACP's steering extension (claude-agent-acp's and codex-acp's shape), over the shared rule
in adapters/steering.py. A turn started for an idle session streams like any prompt; nobody awaits its answer."""

from __future__ import annotations

from typing import Any

from agent_lsp.adapters.acp.configuration import opened
from agent_lsp.adapters.acp.jsonrpc import RequestContext, RpcError
from agent_lsp.adapters.acp.live import SessionTable
from agent_lsp.adapters.acp.params import require_list, require_str
from agent_lsp.adapters.acp.turns import PromptRuns
from agent_lsp.adapters.content import BlockError, read_blocks
from agent_lsp.adapters.steering import (
    PROMPT_REQUIRED,
    BadSteerParams,
    idle_behavior,
    injected,
    start_turn,
    steer_running,
)
from agent_lsp.supervisor import TaskSupervisor

METHOD = "_session/steering"


class Steering:
    def __init__(self, sessions: SessionTable, turns: PromptRuns, tasks: TaskSupervisor) -> None:
        self.sessions = sessions
        self.turns = turns
        self.tasks = tasks  # the connection's: the started turn is its background work

    async def steer(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        sid = require_str(params, "sessionId")
        live = self.sessions.require(sid)
        blocks = require_list(params, "prompt")
        try:
            behavior = idle_behavior(params)
        except BadSteerParams as exc:
            raise RpcError.invalid_params(exc.field, exc.why) from exc
        handle = await opened(live)
        try:
            prompt, attachments = await read_blocks(blocks, live.fs.read_text)
        except BlockError as exc:
            raise RpcError.invalid_params(exc.where, exc.why) from exc
        message_id = await steer_running(live, handle.session, prompt, attachments)
        if message_id is not None:
            return injected(message_id)
        if behavior == "promptRequired":
            return PROMPT_REQUIRED
        # Claimed now, before this answer: a session/prompt right behind it is refused as busy, not raced.
        run = self.turns.prompt({"sessionId": sid, "prompt": blocks}, RequestContext(ctx.request_id, "session/prompt"))
        return start_turn(self.tasks, run, sid)
