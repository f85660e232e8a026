"""The context the next request will carry, estimated where no request has measured it yet (a rewind, an undo, a
fork, a model switch, a compression)."""

from __future__ import annotations

from agent_lsp import events as ev
from agent_lsp.core.session_state import SessionDeps, SessionState


def context_usage(state: SessionState, deps: SessionDeps) -> ev.ContextUsage:
    """The history as compression estimates it plus the fixed part (system prompt, tool declarations) the last
    real request showed, against the current model's window, with every model call paid for so far (a rewind
    gives no cost back)."""
    used = state.fixed_tokens + state.history.estimate()
    totals = deps.meter() if deps.meter is not None else None
    return ev.ContextUsage(used, deps.options.token_limit(state.model), totals)


def fork_usage(source: SessionState, fork: SessionState, deps: SessionDeps) -> ev.ContextUsage:
    """A fork's first figure: its copied history, with its source's fixed part until a request of its own
    measures one."""
    fork.fixed_tokens = source.fixed_tokens
    return context_usage(fork, deps)
