"""A hook's JSON answer read through the lenient typed reader: the fields Gemini CLI defines, each of its type or
absent; a value of another type is left out and reported naming the hook, the key and the reason."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agent_lsp.fields import Fields

_BLOCKING = ("deny", "block")


@dataclass(frozen=True)
class HookAnswer:
    """What one hook said, typed; ``problems`` are the values that were left out (shown as warnings)."""

    stop: bool = False  # "continue": false
    stop_reason: str = ""
    blocked: bool = False  # "decision": "deny" or "block"
    reason: str = ""
    system_message: str = ""
    additional_context: str = ""
    tool_input: dict[str, Any] | None = None
    llm_request: dict[str, Any] | None = None
    llm_response: dict[str, Any] | None = None
    clear_context: bool = False
    problems: tuple[str, ...] = ()


def read_answer(output: Mapping[str, Any], label: str) -> HookAnswer:
    """``output`` (the hook's JSON object) as a ``HookAnswer``; ``label`` names the hook in problems."""
    top = Fields(output, label, quote_keys=True)
    go_on = top.take("continue", bool, "must be true or false; ignored.")
    stop_reason = top.take("stopReason", str, "must be a string; ignored.")
    decision = top.take("decision", str, "must be a string; ignored.")
    reason = top.take("reason", str, "must be a string; ignored.")
    message = top.take("systemMessage", str, "must be a string; ignored.")
    specific = top.take("hookSpecificOutput", dict, "must be an object; ignored.") or {}
    inner = Fields(specific, f"{label}: hookSpecificOutput", quote_keys=True)
    context = inner.take("additionalContext", str, "must be a string; ignored.")
    tool_input = inner.take("tool_input", dict, "must be an object; ignored.")
    llm_request = inner.take("llm_request", dict, "must be an object; ignored.")
    llm_response = inner.take("llm_response", dict, "must be an object; ignored.")
    clear = inner.take("clearContext", bool, "must be true or false; ignored.")
    return HookAnswer(
        stop=go_on is False,
        stop_reason=stop_reason or "",
        blocked=decision in _BLOCKING,
        reason=reason or "",
        system_message=message or "",
        additional_context=context or "",
        tool_input=tool_input,
        llm_request=llm_request,
        llm_response=llm_response,
        clear_context=clear is True,
        problems=(*top.problems, *inner.problems),
    )
