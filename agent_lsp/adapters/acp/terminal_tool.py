"""run_shell_command in the editor's terminal (``terminal/create`` … ``terminal/release``), for clients that
advertise ``terminal``. Parameters, validation and confirmation are ShellTool's; only execution differs."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from agent_lsp.adapters.acp.jsonrpc import Connection, RpcError
from agent_lsp.tools.base import OutputSink, ToolResult
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.shell import ShellInvocation, ShellParams, ShellTool

log = logging.getLogger(__name__)

OUTPUT_BYTE_LIMIT = 4 * 1024 * 1024
CLEANUP_TIMEOUT_S = 3.0
# Same markers the local shell sets, so scripts can tell they run under the agent and never page.
TERMINAL_ENV = {"GEMINI_CLI": "1", "AGENT_LSP": "1", "PAGER": "cat", "GIT_PAGER": "cat"}

AttachTerminal = Callable[[str, str], Awaitable[None]]
"""(tool call id, terminal id): show the terminal in that tool call, after the tool call itself was sent."""


class TerminalShellTool(ShellTool):
    def __init__(self, ctx: ToolContext, conn: Connection, session_id: str, attach: AttachTerminal) -> None:
        super().__init__(ctx)
        self.conn = conn
        self.session_id = session_id
        self.attach = attach

    def build(self, params: dict[str, Any]) -> ShellInvocation:
        local = super().build(params)
        return TerminalShellInvocation(local.params, self.ctx, local.cwd, self)


class TerminalShellInvocation(ShellInvocation):
    def __init__(self, params: ShellParams, ctx: ToolContext, cwd: Path, tool: TerminalShellTool) -> None:
        super().__init__(params, ctx, cwd)
        self.tool = tool

    async def execute(self, output: OutputSink) -> ToolResult:
        if self.params.is_background:
            # A detached server outlives any editor terminal: start it locally, as the built-in tool does.
            return await super().execute(output)
        conn, sid = self.tool.conn, self.tool.session_id
        try:
            created = await conn.request(
                "terminal/create",
                {
                    "sessionId": sid,
                    "command": "bash",
                    "args": ["-c", self.params.command],
                    "env": [{"name": k, "value": v} for k, v in TERMINAL_ENV.items()],
                    "cwd": str(self.cwd),
                    "outputByteLimit": OUTPUT_BYTE_LIMIT,
                },
            )
        except RpcError as exc:
            message = f"The editor could not start a terminal: {exc.message}"
            return ToolResult(llm_content=message, error=message, error_type="shell_start_failed")
        terminal_id = created.get("terminalId") if isinstance(created, dict) else None
        if not isinstance(terminal_id, str):
            message = "The editor did not return a terminal id"
            return ToolResult(llm_content=message, error=message, error_type="shell_start_failed")
        ref = {"sessionId": sid, "terminalId": terminal_id}
        finished = False
        try:
            await self.tool.attach(self.call_id, terminal_id)
            status = await conn.request("terminal/wait_for_exit", ref)
            finished = True
            out = await conn.request("terminal/output", ref)
        except RpcError as exc:
            message = f"The editor's terminal failed: {exc.message}"
            return ToolResult(llm_content=message, error=message, error_type="shell_failed")
        finally:
            # Shielded: a cancelled turn must still stop the command and free the terminal before it answers.
            await asyncio.shield(self._cleanup(conn, ref, kill=not finished))
        return self._result(status, out)

    async def _cleanup(self, conn: Connection, ref: dict[str, str], *, kill: bool) -> None:
        for method in ("terminal/kill", "terminal/release") if kill else ("terminal/release",):
            with contextlib.suppress(RpcError, ConnectionError, TimeoutError):
                await conn.request(method, ref, timeout=CLEANUP_TIMEOUT_S)

    def _result(self, status: Any, out: Any) -> ToolResult:
        status = status if isinstance(status, dict) else {}
        out = out if isinstance(out, dict) else {}
        text = str(out.get("output") or "").rstrip("\n")
        if out.get("truncated"):
            text = "[earlier output was cut by the editor]\n" + text
        code = status.get("exitCode")
        sig = status.get("signal")
        lines = [
            f"Command: {self.params.command}",
            f"Directory: {self._directory}",
            f"Output: {text if text.strip() else '(empty)'}",
            f"Signal: {sig}" if sig else f"Exit Code: {code}",
            "Background PIDs: (none)",
        ]
        display = text
        if sig:
            display += f"\n[killed by {sig}]"
        elif isinstance(code, int) and code > 0:
            display += f"\n[exit code {code}]"
        return ToolResult(llm_content="\n".join(lines), display=display.strip("\n") or "(no output)")
