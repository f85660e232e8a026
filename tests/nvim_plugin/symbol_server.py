"""A small real language server (pygls, over stdio) that answers ``workspace/symbol`` with the ``def`` and ``class``
names of the workspace's Python files: a second language server in Neovim for the chat's ``@`` symbol completion
(no language server with workspace symbols is installed where the specs run)."""

from __future__ import annotations

import re
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("symbols", "0.1")
_DEF = re.compile(r"^\s*(def|class)\s+(\w+)", re.MULTILINE)


@server.feature(types.WORKSPACE_SYMBOL)
def symbols(ls: LanguageServer, params: types.WorkspaceSymbolParams) -> list[types.SymbolInformation]:
    root = Path(ls.workspace.root_path or ".")
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in _DEF.finditer(text):
            if params.query.lower() in match.group(2).lower():
                line = text.count("\n", 0, match.start(2))
                kind = types.SymbolKind.Function if match.group(1) == "def" else types.SymbolKind.Class
                where = types.Range(types.Position(line, 0), types.Position(line, 0))
                found.append(
                    types.SymbolInformation(
                        location=types.Location(path.as_uri(), where), name=match.group(2), kind=kind
                    )
                )
    return found


if __name__ == "__main__":
    server.start_io()
