"""Plain-text rendering of the event stream for the terminal (headless runs and the demo)."""

from __future__ import annotations

from agent_lsp import events as ev

_ICON = {"success": "✓", "error": "✗", "cancelled": "⊘"}


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
        case ev.Retry(attempt=attempt, reason=reason, delay_s=delay):
            return f"\n  ↻ retry {attempt} in {delay:.1f}s: {reason}\n"
        case ev.ModelFallback(from_model=a, to_model=b, reason=reason):
            return f"\n  ⚠ switching from {a} to {b}: {reason}\n"
        case ev.ChatCompressed(original_tokens=a, new_tokens=b):
            return f"\n  ⇣ conversation compressed: {a} → {b} tokens\n"
        case ev.Compaction(status="failed", error=error):
            return f"  [warning] {error}\n"  # as the notice it was before compactions had events of their own
        case ev.LoopDetected(detail=detail):
            return f"\n  ⚠ loop detected, stopping: {detail}\n"
        case ev.InvalidStream(reason=reason, detail=detail):
            return f"\n  ⚠ the model's response was unusable ({reason}): {detail}\n"
        case ev.Error(message=message):
            return f"\n  ✗ {message}\n"
        case ev.Notice(level=level, message=message):
            return f"  [{level}] {message}\n"
        case ev.MaxSessionTurns(limit=limit):
            return f"\n  ⚠ session turn limit ({limit}) reached\n"
        case ev.ContextWindowWillOverflow(estimated_tokens=need, remaining_tokens=left):
            return f"\n  ⚠ the message (~{need} tokens) would overflow the context window ({left} left)\n"
        case ev.UserCancelled():
            return "\n  ⊘ cancelled\n"
        case ev.Stop(reason=reason, usage=usage) if verbose:
            tokens = f", {usage.total_tokens} tokens" if usage else ""
            return f"\n\n— {reason}{tokens}\n"
    return None
