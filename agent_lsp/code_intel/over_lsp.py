"""The operations as plain LSP requests, for sources that forward raw requests to a language server (our own pool,
an ACP client's ``lsp/request``): which request each needs, which server capability says it is there."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_lsp.code_intel import lsp_json
from agent_lsp.core.code_intel import OPERATIONS, CodeAnswer, CodeSymbol, Operation, TextChange

Requester = Callable[[str, Any], Awaitable[Any]]
"""Sends one LSP request (method, params) and returns its plain JSON result; raises CodeIntelError."""

METHODS: dict[Operation, str] = {
    "goToDefinition": "textDocument/definition",
    "findReferences": "textDocument/references",
    "hover": "textDocument/hover",
    "documentSymbol": "textDocument/documentSymbol",
    "workspaceSymbol": "workspace/symbol",
    "goToImplementation": "textDocument/implementation",
    "incomingCalls": "callHierarchy/incomingCalls",
    "outgoingCalls": "callHierarchy/outgoingCalls",
}
PREPARE_CALLS = "textDocument/prepareCallHierarchy"
RENAME = "textDocument/rename"
_PROVIDERS: dict[Operation, str] = {
    "goToDefinition": "definitionProvider",
    "findReferences": "referencesProvider",
    "hover": "hoverProvider",
    "documentSymbol": "documentSymbolProvider",
    "workspaceSymbol": "workspaceSymbolProvider",
    "goToImplementation": "implementationProvider",
    "incomingCalls": "callHierarchyProvider",
    "outgoingCalls": "callHierarchyProvider",
}


def supported(capabilities: Mapping[str, Any], methods: Sequence[str] | None = None) -> list[Operation]:
    """The operations a server's ``initialize`` capabilities offer (and, for a proxy, that it forwards)."""
    found: list[Operation] = []
    for op in OPERATIONS:
        provider = capabilities.get(_PROVIDERS[op])
        forwarded = methods is None or (METHODS[op] in methods and (op not in _CALLS or PREPARE_CALLS in methods))
        if provider not in (None, False) and forwarded:
            found.append(op)
    return found


def can_rename(capabilities: Mapping[str, Any], methods: Sequence[str] | None = None) -> bool:
    return capabilities.get("renameProvider") not in (None, False) and (methods is None or RENAME in methods)


_CALLS = ("incomingCalls", "outgoingCalls")


def _at(path: Path, line: int, character: int) -> dict[str, Any]:
    return {
        "textDocument": {"uri": lsp_json.path_to_uri(path)},
        "position": {"line": line, "character": character},
    }


async def ask(request: Requester, op: Operation, path: Path, line: int, character: int, query: str) -> CodeAnswer:
    """One operation through ``request``, its answer in neutral types."""
    if op == "workspaceSymbol":
        return CodeAnswer(
            symbols=await lsp_json.off_loop(lsp_json.symbols, await request(METHODS[op], {"query": query}))
        )
    if op == "documentSymbol":
        params = {"textDocument": {"uri": lsp_json.path_to_uri(path)}}
        return CodeAnswer(symbols=lsp_json.symbols(await request(METHODS[op], params), path))
    at = _at(path, line, character)
    if op == "hover":
        return CodeAnswer(hover=lsp_json.hover_text(await request(METHODS[op], at)))
    if op in _CALLS:
        items = await request(PREPARE_CALLS, at)
        found: list[CodeSymbol] = []
        for item in items if isinstance(items, list) else []:
            result = await request(METHODS[op], {"item": item})
            found.extend(lsp_json.calls(result, incoming=op == "incomingCalls", caller=item))
        return CodeAnswer(symbols=tuple(found))
    if op == "findReferences":
        at["context"] = {"includeDeclaration": True}
    return CodeAnswer(locations=await lsp_json.off_loop(lsp_json.locations, await request(METHODS[op], at)))


async def rename(
    request: Requester, path: Path, line: int, character: int, new_name: str
) -> dict[Path, list[TextChange]] | None:
    return lsp_json.workspace_edit(await request(RENAME, {**_at(path, line, character), "newName": new_name}))
