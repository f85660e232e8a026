"""The one wording of the events a person is told about (a retry, a fallback, a loop, a limit), whatever shows it:
the terminal (render.py), an editor's notices (adapters/updates.py) and a subagent's steps (tools/subagent_run.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agent_lsp import events as ev

Level = Literal["info", "warning", "error"]


@dataclass(frozen=True)
class Said:
    """What to tell a person about an event, and how much it matters."""

    level: Level
    text: str


def said(event: ev.AgentEvent) -> Said | None:
    """The sentence for an event that is news to a person (not the model's text, calls or plan); None otherwise."""
    match event:
        case ev.Notice(level=level, message=message):
            return Said(level, message)
        case ev.Retry(reason=reason, attempt=attempt, delay_s=delay):
            # How long the wait is matters to a person watching (headless tells it on stderr in every format).
            return Said("info", f"Retrying the model request in {round(delay, 1):g}s (attempt {attempt + 1}): {reason}")
        case ev.ModelFallback(from_model=a, to_model=b, reason=reason):
            return Said("warning", f"Switched from {a} to {b}: {reason}")
        case ev.ChatCompressed(original_tokens=a, new_tokens=b):
            return Said("info", f"Conversation compressed from {a} to about {b} tokens.")
        case ev.LoopDetected(detail=detail):
            return Said("warning", f"Stopped: a loop was detected ({detail}).")
        case ev.InvalidStream(reason=reason, detail=detail):
            return Said("warning", f"The model's response was unusable ({reason}): {detail}")
        case ev.MaxSessionTurns(limit=limit):
            return Said("warning", f"This session reached its turn limit ({limit}).")
        case ev.ContextWindowWillOverflow(estimated_tokens=need, remaining_tokens=left):
            text = f"The message (~{need} tokens) would overflow the context window ({left} left); try /compress."
            return Said("warning", text)
        case ev.Error(message=message):
            return Said("error", message)
        case ev.UserCancelled():
            return Said("info", "Cancelled.")
    return None
