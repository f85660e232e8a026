"""A small real language server (pygls, over stdio) that counts columns in the encoding it negotiated (UTF-8 with
Neovim, which offers it first) and answers ``textDocument/definition`` and ``textDocument/references`` for the word
under the cursor by text search: the code-intelligence spec's check that the plugin recodes the agent's UTF-16
positions for such a server and the server's answers back."""

from __future__ import annotations

import re
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("encoding", "0.1")


def _word(ls: LanguageServer, params: types.TextDocumentPositionParams) -> str:
    lines = ls.workspace.get_text_document(params.text_document.uri).lines
    at = ls.workspace.position_codec.position_from_client_units(lines, params.position)
    for match in re.finditer(r"\w+", lines[at.line]):
        if match.start() <= at.character <= match.end():
            return match.group()
    return ""


def _find(ls: LanguageServer, pattern: str) -> list[types.Location]:
    """Every match of ``pattern``'s group 1 in the workspace's Python files, in the negotiated encoding."""
    codec = ls.workspace.position_codec
    found = []
    for path in sorted(Path(ls.workspace.root_path or ".").rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        for n, line in enumerate(lines):
            for match in re.finditer(pattern, line):
                start = codec.position_to_client_units(lines, types.Position(n, match.start(1)))
                end = codec.position_to_client_units(lines, types.Position(n, match.end(1)))
                found.append(types.Location(path.as_uri(), types.Range(start, end)))
    return found


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
def references(ls: LanguageServer, params: types.ReferenceParams) -> list[types.Location]:
    word = _word(ls, params)
    return _find(ls, rf"\b({re.escape(word)})\b") if word else []


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def definition(ls: LanguageServer, params: types.DefinitionParams) -> list[types.Location]:
    word = _word(ls, params)
    return _find(ls, rf"^\s*(?:def|class)\s+({re.escape(word)})\b") if word else []


if __name__ == "__main__":
    server.start_io()
