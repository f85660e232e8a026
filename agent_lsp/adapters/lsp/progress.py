"""Progress for a prompt (``$/progress`` begin/report/end payloads) and the tracker that words the event stream.

Plain dicts in LSP shapes, no protocol library, so each is unit-tested on its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_lsp import events as ev

TITLE_LIMIT = 48
STOP_MESSAGES = {
    "end_turn": "Done",
    "max_tokens": "Stopped: the response hit the token limit",
    "max_turn_requests": "Stopped: too many turns",
    "refusal": "The model refused",
    "cancelled": "Cancelled",
    "error": "Failed",
}


SUMMARY_LIMIT = 100


def _one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line[: limit - 1].rstrip() + "…" if len(line) > limit else line


def progress_title(prompt_text: str) -> str:
    line = _one_line(prompt_text, TITLE_LIMIT)
    return f"Agent: {line}" if line else "Agent"


def progress_begin(title: str, message: str = "Thinking…") -> dict[str, Any]:
    return {"kind": "begin", "title": title, "cancellable": True, "message": message}


def progress_report(message: str) -> dict[str, Any]:
    return {"kind": "report", "message": message, "cancellable": True}


def progress_end(reason: str, answer: str = "") -> dict[str, Any]:
    """The end of a turn; a finished one carries the start of the answer (some clients show nothing else)."""
    message = STOP_MESSAGES.get(reason, reason)
    if reason == "end_turn" and answer.strip():
        message = f"{message}: {_one_line(answer, SUMMARY_LIMIT)}"
    return {"kind": "end", "message": message}


def progress_summary(request: str) -> str:
    """The begin message: what the agent is working on, in one line (a client may show only messages)."""
    line = _one_line(request, SUMMARY_LIMIT)
    return f"Working on: {line}" if line else "Thinking…"


@dataclass
class ProgressTracker:
    """Turns the event stream into short, self-contained progress messages ("Running replace: Edit a.py")."""

    batch: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)
    _closed: bool = True
    _writing: bool = False

    def message(self, event: ev.AgentEvent) -> str | None:
        match event:
            case ev.Thought(subject=subject) if subject:
                return f"Thinking: {subject}"
            case ev.Content(text=text) if text.strip() and not self._writing:
                self._writing = True
                return "Writing the answer…"
            case ev.ToolCallRequest(call=call):
                if self._closed:
                    self.batch, self._closed = [], False
                self.batch.append(call.call_id)
                self.names[call.call_id] = call.name
                self.titles[call.call_id] = call.title or call.name
                return None
            case ev.ToolCallStatusChange(call_id=call_id, status="awaiting_approval"):
                return f"Waiting for your approval: {self.titles.get(call_id, call_id)}"
            case ev.ToolCallStatusChange(call_id=call_id, status="executing"):
                return f"Running {self._label(call_id)}{self._position(call_id)}"
            case ev.ToolOutput(call_id=call_id, chunk=chunk) if self.names.get(call_id, "").startswith("mcp_"):
                # An MCP server's progress reports arrive as its call's output lines ("[3/5] step three").
                lines = [line for line in chunk.splitlines() if line.strip()]
                return f"Running {self._label(call_id)}: {_one_line(lines[-1], SUMMARY_LIMIT)}" if lines else None
            case ev.ToolCallResponse(call_id=call_id, status="error", error=error):
                why = f": {_one_line(error, SUMMARY_LIMIT)}" if error else ""
                return f"{self.titles.get(call_id, call_id)} failed{why}"
            case ev.ToolCallResponse(call_id=call_id, status="cancelled"):
                return f"{self.titles.get(call_id, call_id)}: not run"
            case ev.Finished():
                self._closed = True
                self._writing = False
                return None
            case ev.Retry(attempt=attempt):
                return f"Retrying the model request (attempt {attempt + 1})"
            case ev.Notice(level="info", message=message):
                return message  # e.g. waiting for MCP servers still starting
        return None

    def _label(self, call_id: str) -> str:
        name = self.names.get(call_id, call_id)
        title = self.titles.get(call_id, name)
        return f"{name}: {title}" if title and title != name else f"{name} …"

    def _position(self, call_id: str) -> str:
        if len(self.batch) < 2 or call_id not in self.batch:
            return ""
        return f" (tool {self.batch.index(call_id) + 1} of {len(self.batch)})"
