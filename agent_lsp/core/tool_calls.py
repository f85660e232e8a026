"""One call of a batch before it runs: looked up, validated, built, described and decided — and how it ends."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_lsp import events as ev
from agent_lsp.core.ports import Decision, ToolPolicy, ToolSet
from agent_lsp.core.tool import Tool, ToolCallRequestInfo, ToolInvocation
from agent_lsp.core.tool_answers import tool_suggestion
from agent_lsp.errors import ToolError
from agent_lsp.model.base import FunctionResponse, Part

Status = Literal["success", "error", "cancelled"]


@dataclass
class CallOutcome:
    """A finished call, ready to become a functionResponse."""

    call_id: str
    name: str
    status: Status
    response: dict[str, Any]
    extra_parts: list[Part] = field(default_factory=list)
    declined: bool = False  # the user cancelled at a confirmation: the prompt ends without asking the model again
    stopped: str | None = None  # a hook said "continue": false: the prompt ends after this batch, with this reason


@dataclass
class PreparedCall:
    """``error`` set: the call cannot run and ends with it (``error_type`` is Gemini CLI's type)."""

    request: ToolCallRequestInfo
    info: ev.ToolCallInfo
    tool: Tool | None = None
    invocation: ToolInvocation[Any] | None = None
    error: str | None = None
    error_type: str | None = None
    decision: Decision = "ask"
    deny_reason: str = ""

    @property
    def parallel(self) -> bool:
        # ``wait_for_previous`` (Gemini CLI 0.61): the model asks for this call to wait for the ones before it.
        waits = self.request.args.get("wait_for_previous") is True
        runnable = self.error is None and self.decision == "allow" and self.tool is not None
        return runnable and self.tool is not None and self.tool.read_only and not waits


def bare(request: ToolCallRequestInfo) -> PreparedCall:
    """A call known only by its request (never looked up): enough to answer it."""
    return PreparedCall(request, ev.ToolCallInfo(request.call_id, request.name, request.args, request.name))


def prepare(registry: ToolSet, policy: ToolPolicy, request: ToolCallRequestInfo) -> PreparedCall:
    """Look the tool up (a disabled tool is "not found", as Gemini CLI says), check and build the call, describe
    it for the editor and ask the policy."""
    p = bare(request)
    tool = registry.get(request.name)
    if tool is None or not policy.is_enabled(request.name, tool):
        names = [n for n in registry.names() if policy.is_enabled(n, registry.get(n))]
        p.error = f'Tool "{request.name}" not found.{tool_suggestion(request.name, names)}'
        p.error_type = "tool_not_registered"
        return p
    p.tool = tool
    problem = tool.validate(request.args)
    if problem is None:
        try:
            p.invocation = tool.build(request.args)
            p.invocation.call_id = request.call_id
        except ToolError as exc:
            problem = str(exc)
    if problem is not None:
        p.error = f"Invalid parameters for {tool.name}: {problem}"
        p.error_type = "invalid_tool_params"
    title = tool.display_name
    locations: tuple[ev.Location, ...] = ()
    if p.invocation is not None:
        title = p.invocation.describe()
        locations = tuple(p.invocation.locations())
    p.info = ev.ToolCallInfo(request.call_id, tool.name, request.args, title, tool.kind, locations)
    if p.error is None:
        p.decision, p.deny_reason = policy.decide(tool, request.args)
    return p


def function_responses(
    calls: Sequence[ToolCallRequestInfo], model_ids: Mapping[str, str | None], outcomes: Mapping[str, CallOutcome]
) -> list[Part]:
    """The answer to every call of a turn, in the model's order (a call the batch never reached was cancelled),
    followed by the media parts results carried."""
    responses: list[Part] = []
    extra: list[Part] = []
    for call in calls:
        outcome = outcomes.get(call.call_id)
        response = outcome.response if outcome else {"error": "Cancelled by the user."}
        answer = FunctionResponse(name=call.name, response=response, id=model_ids.get(call.call_id))
        responses.append(Part(function_response=answer))
        if outcome:
            extra.extend(outcome.extra_parts)
    return responses + extra
