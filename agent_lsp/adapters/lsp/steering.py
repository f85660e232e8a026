"""``agent/steer``: a message into the running turn (docs/protocol.md#agentsteer), over the shared rule in
adapters/steering.py; a turn it starts for an idle session streams like any ``agent/prompt``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_lsp.adapters.lsp.context import prompt_input
from agent_lsp.adapters.lsp.params import RequestError
from agent_lsp.adapters.lsp.prompts import Prompts
from agent_lsp.adapters.lsp.sessions import Sessions
from agent_lsp.adapters.steering import (
    PROMPT_REQUIRED,
    BadSteerParams,
    idle_behavior,
    injected,
    start_turn,
    steer_running,
)


class Steering:
    def __init__(self, sessions: Sessions, prompts: Prompts) -> None:
        self.sessions = sessions
        self.prompts = prompts

    async def steer(self, params: Mapping[str, Any]) -> dict[str, Any]:
        live = self.sessions.live(params)
        try:
            behavior = idle_behavior(params)
            prompt, attachments = await prompt_input(
                params.get("prompt", ""), params.get("context"), self.sessions.fs.read_text
            )
        except BadSteerParams as exc:
            raise RequestError("invalid_params", str(exc)) from exc
        except (ValueError, KeyError, TypeError) as exc:
            raise RequestError("invalid_params", f"bad prompt: {exc}") from exc
        handle = await live.handle()
        message_id = await steer_running(live, handle.session, prompt, attachments)
        if message_id is not None:
            return injected(message_id)
        if behavior == "promptRequired":
            return PROMPT_REQUIRED
        turn = {"sessionId": live.id, "prompt": params.get("prompt", ""), "context": params.get("context")}
        return start_turn(self.sessions.config.tasks, self.prompts.prompt(turn), live.id)  # the connection's tasks
