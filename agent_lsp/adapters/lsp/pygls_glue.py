"""What we rely on pygls for beyond its documented API, in one place (checked by tests/lsp/test_pygls_glue.py).

1. Its converter would turn the params of methods lsprotocol does not know (our ``agent/*``) into namedtuples,
   renaming keys such as ``_meta``: ``json_converter`` keeps them plain JSON (pygls's own
   ``default_converter`` registers the same three hooks, with namedtuples).
2. pygls writes each message with one ``writer.write`` of a whole frame, and the only frames it writes for us
   are answers to the client's requests (our own messages go out through the writer directly):
   ``AnswerWatch`` sees which requests have been answered, which pygls keeps to itself.
3. pygls writes an ``async`` handler's answer from a done-callback of the handler's future, which the event loop
   runs right after the handler returns: ``after_answer`` runs work one loop turn later, behind that answer.

Its workspace is not used as the document store: ``TextDocument`` splits lines with ``str.splitlines``, which
breaks lines at form feeds and U+2028 too, so an edit after one lands in the wrong place (documents.py
follows the LSP rule: ``\\n``, ``\\r\\n``, ``\\r`` only). The test fails once pygls follows the rule.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

from cattrs import Converter
from lsprotocol.converters import get_converter
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage

log = logging.getLogger(__name__)


def json_converter() -> Converter:
    """lsprotocol's converter, except that params and results of methods it does not know stay plain JSON."""
    converter = get_converter()

    def keep(obj: dict[str, Any], cls: type[Any]) -> Any:
        return cls(**obj)

    for message in (JsonRPCRequestMessage, JsonRPCResponseMessage, JsonRPCNotification):
        converter.register_structure_hook(message, keep)
    return converter


def after_answer(work: Callable[[], None]) -> None:
    """Run ``work`` once the answer of the request being handled is written (call it from the handler): what
    follows the answer, such as an update about the session it names, must not overtake it."""
    loop = asyncio.get_running_loop()
    # The handler's done-callback is queued when the handler returns, after this first callback: the second
    # one is queued behind it.
    loop.call_soon(loop.call_soon, work)


class AnswerWatch:
    """The writer pygls gets: passes its frames on, and tells ``answered`` the id of each answer among them."""

    def __init__(
        self, write: Callable[[bytes], None], answered: Callable[[Any], None], close: Callable[[], None]
    ) -> None:
        self._write = write
        self._answered = answered
        self.close = close

    def write(self, data: bytes) -> None:
        self._write(data)
        head, sep, body = data.partition(b"\r\n\r\n")
        try:
            message = json.loads(body if sep else head)
        except ValueError:
            log.warning("pygls wrote something that is not one JSON-RPC frame")
            return
        if isinstance(message, dict) and "id" in message and "method" not in message:
            self._answered(message["id"])
