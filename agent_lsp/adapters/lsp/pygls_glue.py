"""What we rely on pygls for beyond its documented API, in one place (checked by tests/lsp/test_pygls_glue.py).

1. Its converter would turn the params of methods lsprotocol does not know (our ``agent/*``) into namedtuples,
   renaming keys such as ``_meta``: ``json_converter`` keeps them plain JSON (pygls's own
   ``default_converter`` registers the same three hooks, with namedtuples).
2. ``LanguageServer.feature``/``command`` register the function they are given, and pygls runs each request's
   handler where ``protocol.msg_id`` names that request (server.py wraps the handlers to order what they set
   going behind their answers; ordering.py finds those answers in the frames pygls writes, however it splits them).

Its workspace is not used as the document store: ``TextDocument`` splits lines with ``str.splitlines``, which
breaks lines at form feeds and U+2028 too, so an edit after one lands in the wrong place (documents.py
follows the LSP rule: ``\\n``, ``\\r\\n``, ``\\r`` only). The test fails once pygls follows the rule.
"""

from __future__ import annotations

from typing import Any

from cattrs import Converter
from lsprotocol.converters import get_converter
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage


def json_converter() -> Converter:
    """lsprotocol's converter, except that params and results of methods it does not know stay plain JSON."""
    converter = get_converter()

    def keep(obj: dict[str, Any], cls: type[Any]) -> Any:
        return cls(**obj)

    for message in (JsonRPCRequestMessage, JsonRPCResponseMessage, JsonRPCNotification):
        converter.register_structure_hook(message, keep)
    return converter
