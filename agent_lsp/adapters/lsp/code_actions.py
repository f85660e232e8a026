"""Code actions ("Fix/Explain/Edit selection with agent") and the prompts their commands send.

Plain dicts in LSP shapes, no protocol library.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_lsp.adapters.lsp.capabilities import CMD_EDIT_SELECTION, CMD_EXPLAIN, CMD_FIX
from agent_lsp.adapters.lsp.context import context_text
from agent_lsp.adapters.lsp.documents import uri_to_path
from agent_lsp.adapters.lsp.messages import MESSAGE_TYPE

EDIT_CHOICES = ("Improve readability", "Add comments", "Add error handling", "Simplify", "Add type hints")


def _overlaps(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    def key(p: Mapping[str, Any]) -> tuple[int, int]:
        return (p["line"], p["character"])

    return key(a["start"]) <= key(b["end"]) and key(b["start"]) <= key(a["end"])


def code_actions(uri: str, rng: Mapping[str, Any], diagnostics: Sequence[Mapping[str, Any]], only: Any) -> list[Any]:
    """ "Fix with agent" (diagnostics in range), "Explain with agent", "Edit selection with agent…"."""
    wanted = [str(k) for k in only] if isinstance(only, Sequence) and not isinstance(only, str) else None
    # The empty kind "" is the root of the hierarchy: asking for it asks for everything (vim-lsp always does).
    everything = wanted is None or "" in wanted

    def allowed(kind: str) -> bool:
        return everything or any(kind == w or kind.startswith(w + ".") for w in wanted or ())

    actions: list[Any] = []
    in_range = [d for d in diagnostics if "range" in d and _overlaps(d["range"], rng)]
    if in_range and allowed("quickfix"):
        args = {"uri": uri, "range": rng, "diagnostics": list(in_range)}
        title = "Fix with agent" + (f": {in_range[0].get('message', '')[:60]}" if len(in_range) == 1 else "")
        actions.append(
            {
                "title": title,
                "kind": "quickfix",
                "diagnostics": list(in_range),
                "command": {"title": title, "command": CMD_FIX, "arguments": [args]},
            }
        )
    if everything:  # explaining changes nothing, so it has no kind a filtered request could ask for
        args = {"uri": uri, "range": rng, "diagnostics": list(in_range)}
        actions.append(
            {
                "title": "Explain with agent",
                "command": {"title": "Explain with agent", "command": CMD_EXPLAIN, "arguments": [args]},
            }
        )
    empty = rng["start"] == rng["end"]
    if not empty and allowed("refactor.rewrite"):
        args = {"uri": uri, "range": rng}
        actions.append(
            {
                "title": "Edit selection with agent…",
                "kind": "refactor.rewrite",
                "command": {"title": "Edit selection with agent…", "command": CMD_EDIT_SELECTION, "arguments": [args]},
            }
        )
    return actions


def command_prompt(command: str, context: Mapping[str, Any], instruction: str | None = None) -> str:
    """The prompt a code-action command sends; ``context`` carries uri, range, selectedText, diagnostics."""
    about = context_text(context)
    if command == CMD_FIX:
        ask = (
            "Fix the problems reported in the diagnostics below. Make the smallest correct change, "
            "then say briefly what you changed."
        )
    elif command == CMD_EXPLAIN:
        ask = "Explain what the code below does"
        ask += " and what the diagnostics mean." if context.get("diagnostics") else "."
        ask += " Do not change any file."
    else:
        ask = (
            f"Edit the selected code: {instruction or 'improve it'}. "
            "Change only the selected lines unless more is needed."
        )
    return f"{ask}\n\n{about}" if about else ask


def command_summary(command: str, context: Mapping[str, Any], instruction: str | None = None) -> str:
    """What a code-action turn is about, for its progress ("Fix calc.py: wrong operator")."""
    uri = context.get("uri")
    path = uri_to_path(uri) if isinstance(uri, str) else None
    name = path.name if path is not None else "the file"
    diagnostics = context.get("diagnostics") or []
    first = diagnostics[0].get("message", "") if diagnostics and isinstance(diagnostics[0], Mapping) else ""
    if command == CMD_FIX:
        return f"Fix {name}" + (f": {first}" if first else "")
    if command == CMD_EXPLAIN:
        rng = context.get("range")
        line = f" line {rng['start']['line'] + 1}" if isinstance(rng, Mapping) else ""
        return f"Explain {name}{line}"
    return f"Edit {name}: {instruction or 'improve it'}"


def edit_choice_request() -> dict[str, Any]:
    """Plain-LSP fallback for "Edit selection with agent…": a client that cannot ask for free text picks one."""
    return {
        "type": MESSAGE_TYPE["info"],
        "message": "How should the agent edit the selection?",
        "actions": [{"title": t} for t in EDIT_CHOICES],
    }
