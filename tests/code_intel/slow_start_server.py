"""A pygls language server slow to initialize: it writes ``<root>/initialize-seen`` when asked to initialize and
answers only once ``<root>/gate`` exists (the test opens it); it offers goToImplementation."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("slow-start", "1")
ROOT = Path(sys.argv[1])


@server.feature(types.INITIALIZE)
async def initialize(_params: types.InitializeParams) -> None:
    (ROOT / "initialize-seen").write_text("")
    while True:  # a server busy reading its project on a loaded machine, until the test lets it answer
        if (ROOT / "gate").exists():
            return
        await asyncio.sleep(0.02)


@server.feature(types.TEXT_DOCUMENT_IMPLEMENTATION)
def implementation(params: types.ImplementationParams) -> list[types.Location]:
    here = types.Position(params.position.line, params.position.character)
    return [types.Location(params.text_document.uri, types.Range(here, here))]


if __name__ == "__main__":
    server.start_io()
