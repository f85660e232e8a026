"""list_background_processes and read_background_output: what the session's ``is_background`` commands are
doing, and the end of their output."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from agent_lsp.tools.background import BackgroundProcesses, read_tail
from agent_lsp.tools.base import OutputSink, Tool, ToolInvocation, ToolResult
from agent_lsp.tools.wait_param import with_wait_for_previous
from agent_lsp.untrusted import wrap_untrusted

DEFAULT_LINES = 100
MAX_DELAY_MS = 60_000  # a model asking for a longer wait gets this one


class ListBackgroundProcessesTool(Tool):
    name = "list_background_processes"
    display_name = "List Background Processes"
    description = "Lists the shell commands this session started in the background, running or finished."
    # Gemini CLI 0.61 lets no policy rule allow these, so they are asked (and denied headless) like "other" tools.
    kind = "other"
    parameters: dict[str, Any] = with_wait_for_previous({"type": "object", "properties": {}})

    def __init__(self, processes: BackgroundProcesses) -> None:
        self.processes = processes

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        return _List(None, self.processes)


class _List(ToolInvocation[None]):
    def __init__(self, params: None, processes: BackgroundProcesses) -> None:
        super().__init__(params)
        self.processes = processes

    def describe(self) -> str:
        return "List this session's background processes"

    async def execute(self, output: OutputSink) -> ToolResult:
        entries = self.processes.all()
        if not entries:
            return ToolResult(llm_content="No background processes found.", display="No background processes found.")
        text = "\n".join(p.summary() for p in entries)
        return ToolResult(llm_content=text, display=text)


@dataclass(frozen=True)
class ReadParams:
    pid: int
    lines: int
    delay_ms: int


class ReadBackgroundOutputTool(Tool):
    name = "read_background_output"
    display_name = "Read Background Output"
    description = "Reads the end of the output of a background command this session started."
    kind = "other"
    parameters: dict[str, Any] = with_wait_for_previous(
        {
            "type": "object",
            "properties": {
                "pid": {"type": "integer", "description": "The PID the background command was started with."},
                "lines": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Optional. How many lines to read from the end of its output (default 100).",
                },
                "delay_ms": {
                    "type": "integer",
                    "description": "Optional. Milliseconds to wait before reading, to let the command print something.",
                },
            },
            "required": ["pid"],
        }
    )

    def __init__(self, processes: BackgroundProcesses) -> None:
        self.processes = processes

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        p = ReadParams(int(params["pid"]), int(params.get("lines") or DEFAULT_LINES), int(params.get("delay_ms") or 0))
        return _Read(p, self.processes)


class _Read(ToolInvocation[ReadParams]):
    def __init__(self, params: ReadParams, processes: BackgroundProcesses) -> None:
        super().__init__(params)
        self.processes = processes

    def describe(self) -> str:
        return f"Read the output of background process {self.params.pid}"

    async def execute(self, output: OutputSink) -> ToolResult:
        p = self.params
        if p.delay_ms > 0:
            await asyncio.sleep(min(p.delay_ms, MAX_DELAY_MS) / 1000)
        entry = self.processes.get(p.pid)
        if entry is None:
            message = f"Access denied. Background process ID {p.pid} not found in this session's history."
            return ToolResult(llm_content=message, display="Access denied.", error=message)
        try:
            tail, total = await asyncio.to_thread(read_tail, entry.log, p.lines)
        except OSError as exc:
            message = f"No output log found for process ID {p.pid}: {exc.strerror or exc}"
            return ToolResult(llm_content=message, display=f"No log found for PID {p.pid}", error=message)
        if total == 0:
            return ToolResult(llm_content="Log is empty.", display="Log is empty.")
        header = f"Showing last {p.lines} of {total} lines:\n" if p.lines < total else "Full Log Output:\n"
        text = header + "\n".join(tail)
        # Whatever the command printed is data, not instructions (as the shell's own output).
        return ToolResult(llm_content=wrap_untrusted(text), display=text)
