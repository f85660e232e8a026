"""BeforeTool and AfterTool hooks around one call: block it, rewrite its input, replace or extend its result."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from agent_lsp import events as ev
from agent_lsp.core.ports import HookOutcome, Hooks
from agent_lsp.core.tool import Tool, ToolInvocation, ToolResult
from agent_lsp.errors import ToolError
from agent_lsp.model.base import Part
from agent_lsp.untrusted import wrap_untrusted

STOP = "stop_execution"  # Gemini CLI's error type when a hook stops the whole loop


@dataclass
class BeforeTool:
    """``error`` set: the call does not run and the model reads it; ``stopped``: the whole loop ends too."""

    invocation: ToolInvocation[Any] | None = None  # rebuilt with the hook's input, if it changed any
    changed: tuple[str, ...] = ()
    error: str | None = None
    error_type: str | None = None  # Gemini CLI's ToolErrorType of ``error``
    stopped: str | None = None


def _emit_notices(outcome: HookOutcome, emit: Callable[[ev.AgentEvent], None]) -> None:
    for level, message in outcome.notices:
        emit(ev.Notice(level, message))


async def before_tool(
    hooks: Hooks, tool: Tool, args: dict[str, Any], call_id: str, emit: Callable[[ev.AgentEvent], None]
) -> BeforeTool:
    outcome = await hooks.fire("BeforeTool", {"tool_name": tool.name, "tool_input": args}, tool.name)
    _emit_notices(outcome, emit)
    if outcome.stop:
        reason = outcome.stop_reason or "no reason given"
        return BeforeTool(error=f"Agent execution stopped by hook: {reason}", error_type=STOP, stopped=reason)
    if outcome.blocked:
        return BeforeTool(
            error=f"Tool execution blocked: {outcome.reason or 'no reason given'}", error_type="policy_violation"
        )
    if not outcome.tool_input:
        return BeforeTool()
    merged = {**args, **outcome.tool_input}
    problem = tool.validate(merged)
    invocation = None
    if problem is None:
        try:
            invocation = tool.build(merged)
        except ToolError as exc:
            problem = str(exc)
    if invocation is None:
        return BeforeTool(
            error=f"Tool parameter modification by hook failed validation: {problem}", error_type="invalid_tool_params"
        )
    invocation.call_id = call_id
    return BeforeTool(invocation=invocation, changed=tuple(outcome.tool_input))


def note_changed(result: ToolResult, changed: tuple[str, ...]) -> ToolResult:
    """Tell the model its arguments were not used as it sent them (Gemini CLI's wording)."""
    note = f"\n\n[System] Tool input parameters ({', '.join(changed)}) were modified by a hook before execution."
    return _append(result, note)


async def after_tool(
    hooks: Hooks,
    name: str,
    args: dict[str, Any],
    result: ToolResult,
    emit: Callable[[ev.AgentEvent], None],
) -> tuple[ToolResult, str | None]:
    """The result the model reads after the AfterTool hooks, and the reason if one stopped the loop."""
    content = result.llm_content
    shown = content if isinstance(content, str) else "\n".join(p.text for p in content if p.text)
    response = {"llmContent": shown, "returnDisplay": result.display or "", "error": result.error}
    outcome = await hooks.fire("AfterTool", {"tool_name": name, "tool_input": args, "tool_response": response}, name)
    _emit_notices(outcome, emit)
    if outcome.stop:
        reason = outcome.stop_reason or "no reason given"
        message = f"Agent execution stopped by hook: {reason}"
        return ToolResult(llm_content=message, display=message, error=message, error_type=STOP), reason
    if outcome.blocked:
        message = f"Tool result blocked: {outcome.reason or 'no reason given'}"
        return ToolResult(llm_content=message, display=message, error=message, error_type="execution_failed"), None
    if outcome.additional_context:
        # A hook's output is framed as data like any other text from outside the workspace: a hook that relays a
        # web page or a log must not be able to speak for the user.
        framed = wrap_untrusted(outcome.additional_context, source="AfterTool hook")
        return _append(result, f"\n\n<hook_context>{framed}</hook_context>"), None
    return result, None


def _append(result: ToolResult, text: str) -> ToolResult:
    content = result.llm_content
    new = content + text if isinstance(content, str) else [*content, Part(text=text)]
    return replace(result, llm_content=new)
