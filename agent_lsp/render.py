"""Plain-text rendering of the event stream for the terminal (headless runs and the demo); what is news to a person
is worded once, in wording.py."""

from __future__ import annotations

from agent_lsp import events as ev
from agent_lsp.wording import said

_ICON = {"success": "✓", "error": "✗", "cancelled": "⊘"}
_MARK = {"info": "•", "warning": "⚠", "error": "✗"}


def render(event: ev.AgentEvent, *, verbose: bool = True) -> str | None:
    """The text to print for an event, or None. Content is returned raw (it streams without newlines)."""
    match event:
        case ev.Content(text=text):
            return text
        case ev.Thought(subject=subject, description=description) if verbose:
            return f"\n  💭 {subject or description[:80]}\n"
        case ev.ToolCallRequest(call=call):
            return f"\n  ▶ {call.name}: {call.title}\n"
        case ev.ToolCallConfirmation(call=call, details=details) if verbose:
            return f"  ? approval needed for {call.name} ({details.type}): {details.title}\n"
        case ev.ToolOutput(chunk=chunk) if verbose:
            return "    │ " + chunk.rstrip("\n").replace("\n", "\n    │ ") + "\n"
        case ev.ToolCallResponse(name=name, status=status, diff=diff, error=error, display=display):
            lines = [f"  {_ICON[status]} {name} {status}" + (f": {error}" if error else "")]
            if diff is not None and diff.unified and verbose:
                lines.append("    " + diff.unified.rstrip("\n").replace("\n", "\n    "))
            elif display and verbose and status == "success" and len(display) < 400:
                lines.append("    " + display.rstrip().replace("\n", "\n    "))
            return "\n".join(lines) + "\n"
        case ev.Plan(entries=entries):
            marks = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]", "cancelled": "[-]"}
            return "\n  Plan:\n" + "".join(f"    {marks[e.status]} {e.content}\n" for e in entries)
        case ev.Compaction(status="failed", error=error) if error:
            return f"  {_MARK['warning']} {error}\n"  # as the notice it was before compactions had events of their own
        case ev.Stop(reason=reason, usage=usage) if verbose:
            tokens = f", {usage.total_tokens} tokens" if usage else ""
            return f"\n\n— {reason}{tokens}\n"
    told = said(event)
    if told is None:
        return None
    if isinstance(event, ev.Notice):
        return f"  {_MARK[told.level]} {told.text}\n"
    return f"\n  {_MARK[told.level]} {told.text}\n"
