"""Code intelligence from an ACP client's own language servers, through the draft LSP proxy (the RFD "Language
Server Proxy", agent-client-protocol PR #2154): ``lsp/servers`` lists them, ``lsp/request`` forwards one request
and returns the server's raw result. Used only when the client advertised ``clientCapabilities.lsp``; a draft, so
it may change with the RFD. The client keeps its servers in sync with our writes; we open and sync nothing."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_lsp.adapters.acp.jsonrpc import Connection, RpcError
from agent_lsp.code_intel import lsp_json, over_lsp
from agent_lsp.core.code_intel import (
    OPERATIONS,
    CodeAnswer,
    CodeDiagnostic,
    CodeIntelError,
    DiagnosticsReport,
    Operation,
    TextChange,
)

log = logging.getLogger(__name__)
REQUEST_TIMEOUT_S = 15.0
_DIAGNOSTIC = "textDocument/diagnostic"


class AcpLspProxy:
    """One session's view of the client's language servers (listed once, again after an ``unknown_server``)."""

    def __init__(self, conn: Connection, session_id: str) -> None:
        self.conn = conn
        self.session_id = session_id
        self._servers: list[Mapping[str, Any]] | None = None
        self._methods: list[str] = []

    @property
    def label(self) -> str:
        return "the editor's language servers (ACP lsp proxy, draft)"

    def operations(self) -> list[Operation]:
        return list(OPERATIONS)  # what each server answers is known once they are listed; asking says if not

    def can_rename(self) -> bool:
        return True

    def serves(self, path: Path) -> bool:
        # Until listed (the first question lists them) every file may be served; afterwards, only covered ones.
        return self._servers is None or self._pick(path) is not None

    async def _call(self, method: str, params: Mapping[str, Any]) -> Any:
        try:
            return await self.conn.request(method, {"sessionId": self.session_id, **params}, timeout=REQUEST_TIMEOUT_S)
        except TimeoutError as exc:
            raise CodeIntelError(f"the editor did not answer {method} within {REQUEST_TIMEOUT_S:g} s") from exc
        except RpcError as exc:
            raise CodeIntelError(f"the editor answered {method} with an error: {exc}") from exc
        except ConnectionError as exc:
            raise CodeIntelError(str(exc)) from exc

    async def _list(self) -> None:
        result = await self._call("lsp/servers", {})
        servers = result.get("servers") if isinstance(result, Mapping) else None
        methods = result.get("availableMethods") if isinstance(result, Mapping) else None
        self._servers = [s for s in servers if isinstance(s, Mapping)] if isinstance(servers, list) else []
        self._methods = [m for m in methods if isinstance(m, str)] if isinstance(methods, list) else []

    def _pick(self, path: Path) -> Mapping[str, Any] | None:
        """The RFD's rule: a running server whose workspace holds the file, one naming its extension first, the
        most specific root first."""
        best: tuple[int, int, Mapping[str, Any]] | None = None
        for server in self._servers or ():
            root = server.get("workspacePath")
            if server.get("state") != "running" or not isinstance(root, str):
                continue
            folder = Path(root)
            if not (path == folder or folder in path.parents):
                continue
            extensions = server.get("fileExtensions") if isinstance(server.get("fileExtensions"), list) else []
            named = path.suffix.lstrip(".") in (extensions or [])
            if not named and extensions:
                continue  # it says which files it serves, and this is not one of them
            score = (int(named), len(folder.parts))
            if best is None or score > best[:2]:
                best = (*score, server)
        return best[2] if best else None

    async def _server(self, path: Path) -> Mapping[str, Any] | None:
        if self._servers is None:
            await self._list()
        return self._pick(path)

    def _requester(self, server: Mapping[str, Any]) -> over_lsp.Requester:
        async def request(method: str, params: Any) -> Any:
            try:
                result = await self._call(
                    "lsp/request", {"serverId": server.get("serverId"), "method": method, "params": params}
                )
            except CodeIntelError:
                self._servers = None  # restarted or gone: list again next time
                raise
            return result.get("lspResult") if isinstance(result, Mapping) else None

        return request

    async def ask(self, operation: Operation, path: Path, line: int, character: int, query: str) -> CodeAnswer | None:
        server = await self._server(path)
        if server is None:
            return None
        caps = server.get("capabilities") if isinstance(server.get("capabilities"), Mapping) else {}
        if operation not in over_lsp.supported(caps or {}, self._methods):
            raise CodeIntelError(f"{server.get('name', 'the server')} (through the editor) does not offer {operation}")
        return await over_lsp.ask(self._requester(server), operation, path, line, character, query)

    async def rename(
        self, path: Path, line: int, character: int, new_name: str
    ) -> Mapping[Path, list[TextChange]] | None:
        server = await self._server(path)
        if server is None:
            return None
        caps = server.get("capabilities") if isinstance(server.get("capabilities"), Mapping) else {}
        if not over_lsp.can_rename(caps or {}, self._methods):
            raise CodeIntelError(f"{server.get('name', 'the server')} (through the editor) does not offer rename")
        try:
            return await over_lsp.rename(self._requester(server), path, line, character, new_name)
        except ValueError as exc:
            raise CodeIntelError(str(exc)) from exc

    async def diagnostics(self, paths: Sequence[Path], *, after_edit: bool, budget_s: float) -> DiagnosticsReport:
        """Pull diagnostics (``textDocument/diagnostic``) where a server offers them; the proxy carries no
        published ones, so files of other servers are not reported on."""
        found: dict[Path, tuple[CodeDiagnostic, ...]] = {}
        for path in paths:
            server = await self._server(path)
            caps = server.get("capabilities") if server is not None else None
            if not isinstance(caps, Mapping) or not caps.get("diagnosticProvider") or _DIAGNOSTIC not in self._methods:
                continue
            params = {"textDocument": {"uri": lsp_json.path_to_uri(path)}}
            report = await self._requester(server or {})(_DIAGNOSTIC, params)
            if isinstance(report, Mapping) and report.get("kind") == "full":
                found[path] = lsp_json.diagnostics(path, report.get("items"))
        return DiagnosticsReport(found)
