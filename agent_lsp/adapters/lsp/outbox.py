"""Our requests to the editor as plain JSON-RPC: sent through the frame writer, answered through the Gate.

They never pass through pygls: their params and results stay the JSON the editor reads and writes (no
lsprotocol types to build or to fail on), and an answer the editor gets wrong still ends the wait.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from agent_lsp.adapters import wire
from agent_lsp.adapters.lsp.client import ClientRequestError


def frame(message: Mapping[str, Any]) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Outbox:
    """Requests awaiting the editor's answer, by id."""

    def __init__(self, write: Callable[[bytes], None]) -> None:
        self.write = write
        self._waiting: dict[str, tuple[str, asyncio.Future[Any]]] = {}

    def notify(self, method: str, params: Any) -> None:
        self.write(frame({"jsonrpc": "2.0", "method": method, "params": params}))

    async def request(self, method: str, params: Any) -> Any:
        """The result; ClientRequestError when the editor answers with an error. Cancelling the wait tells the
        editor with ``$/cancelRequest``."""
        msg_id = f"agent-{uuid.uuid4().hex}"
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[msg_id] = (method, future)
        self.write(frame({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}))
        try:
            return await future
        except asyncio.CancelledError:
            if self._waiting.pop(msg_id, None) is not None:
                self.notify("$/cancelRequest", {"id": msg_id})
            raise

    def answer(self, message: Mapping[str, Any]) -> bool:
        """Resolve the request this answer is for; False when it is not one of ours (or no longer awaited)."""
        rid = message.get("id")
        waiting = self._waiting.pop(rid, None) if isinstance(rid, str) else None
        if waiting is None:
            return False
        method, future = waiting
        if future.done():
            return True
        error = message.get("error")
        if error is None:
            future.set_result(message.get("result"))
            return True
        if isinstance(error, Mapping) and isinstance(error.get("message"), str):
            text, code = error["message"], error.get("code")
        else:
            text, code = str(error), wire.INTERNAL_ERROR
        future.set_exception(ClientRequestError(f"{method}: {text} ({code})"))
        return True
