"""The editor's code intelligence over LSP (contract 3 in docs/protocol.md): ``agent/codeIntel`` and
``agent/diagnostics`` requests to a client that advertised ``experimental.agent.codeIntel``; the editor answers
from its own language features (VS Code's providers, Neovim's attached clients) with plain LSP results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_lsp.adapters.lsp.client import ClientRequestError, LspClient, capability
from agent_lsp.code_intel import lsp_json
from agent_lsp.core.code_intel import (
    OPERATIONS,
    CodeAnswer,
    CodeDiagnostic,
    CodeIntelError,
    DiagnosticsReport,
    Operation,
    TextChange,
)


def advertised(caps: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The client's ``experimental.agent.codeIntel`` object, when it offers one."""
    value = capability(caps, "experimental.agent.codeIntel")
    return value if isinstance(value, Mapping) else None


class ClientCodeIntel:
    """CodeIntel answered by the editor. Every file is the editor's to serve: one without a provider answers null."""

    def __init__(self, client: LspClient, offer: Mapping[str, Any]) -> None:
        self.client = client
        listed = offer.get("operations")
        names = listed if isinstance(listed, list) else list(OPERATIONS)
        self._operations = [op for op in OPERATIONS if op in names]
        self._rename = offer.get("rename") is True
        self._diagnostics = offer.get("diagnostics") is True

    @property
    def label(self) -> str:
        return "the editor's language features"

    def operations(self) -> list[Operation]:
        return list(self._operations)

    def can_rename(self) -> bool:
        return self._rename

    def serves(self, path: Path) -> bool:
        return True

    async def _request(self, method: str, params: Mapping[str, Any]) -> Any:
        try:
            return await self.client.request(method, dict(params))
        except ClientRequestError as exc:
            raise CodeIntelError(f"the editor answered: {exc}") from exc

    def _params(self, op: str, path: Path, line: int, character: int) -> dict[str, Any]:
        return {
            "operation": op,
            "textDocument": {"uri": lsp_json.path_to_uri(path)},
            "position": {"line": line, "character": character},
        }

    async def ask(self, operation: Operation, path: Path, line: int, character: int, query: str) -> CodeAnswer | None:
        if operation not in self._operations:
            raise CodeIntelError(f"the editor does not offer {operation}")
        params = self._params(operation, path, line, character)
        if query:
            params["query"] = query
        result = await self._request("agent/codeIntel", params)
        if operation == "hover":
            return CodeAnswer(hover=lsp_json.hover_text(result))
        if operation in ("documentSymbol", "workspaceSymbol"):
            of = path if operation == "documentSymbol" else None
            return CodeAnswer(symbols=await lsp_json.off_loop(lsp_json.symbols, result, of))
        if operation in ("incomingCalls", "outgoingCalls"):
            incoming = operation == "incomingCalls"
            caller = {"uri": lsp_json.path_to_uri(path)}  # outgoing calls happen in the file asked about
            return CodeAnswer(symbols=lsp_json.calls(result, incoming=incoming, caller=caller))
        return CodeAnswer(locations=await lsp_json.off_loop(lsp_json.locations, result))

    async def rename(
        self, path: Path, line: int, character: int, new_name: str
    ) -> Mapping[Path, list[TextChange]] | None:
        if not self._rename:
            raise CodeIntelError("the editor does not offer rename")
        params = {**self._params("rename", path, line, character), "newName": new_name}
        try:
            return lsp_json.workspace_edit(await self._request("agent/codeIntel", params)) or {}
        except ValueError as exc:
            raise CodeIntelError(str(exc)) from exc

    async def diagnostics(self, paths: Sequence[Path], *, after_edit: bool, budget_s: float) -> DiagnosticsReport:
        if not self._diagnostics or not paths:
            return DiagnosticsReport({})
        uris = {lsp_json.path_to_uri(p): p for p in paths}
        wait_ms = round(budget_s * 1000) if after_edit else 0
        result = await self._request("agent/diagnostics", {"uris": list(uris), "waitMs": wait_ms})
        items = result.get("items") if isinstance(result, Mapping) else None
        found: dict[Path, tuple[CodeDiagnostic, ...]] = {}
        pending: set[Path] = set()
        for item in items if isinstance(items, list) else []:
            path = uris.get(str(item.get("uri"))) if isinstance(item, Mapping) else None
            if path is None:
                continue
            found[path] = lsp_json.diagnostics(path, item.get("diagnostics"))
            # Unsettled before an edit too: the editor had not heard from the file's checker yet (a file it had just
            # loaded for this question), so what it had is no "before" to compare with.
            if item.get("settled") is False:
                pending.add(path)
        return DiagnosticsReport(found, frozenset(pending))
