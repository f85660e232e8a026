"""A tool call's life as types, after Gemini CLI's scheduler states (validating, awaiting_approval, scheduled,
executing, success, error, cancelled): each state holds what is known by then, so no field is optional for want of
a stage. ``InvalidCall`` and ``ReadyCall`` leave validation; a ``RunningCall`` is executing (its start time); a
call ends ``Succeeded``, ``Failed`` or ``Cancelled`` (a ``CallOutcome``, what its functionResponse is made from).
Awaiting approval and scheduled are steps of a ``ReadyCall`` the scheduler only announces."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal, TypeAlias

from agent_lsp import events as ev
from agent_lsp.core.ports import Decision, ToolPolicy, ToolSet
from agent_lsp.core.tool import Tool, ToolCallRequestInfo, ToolInvocation
from agent_lsp.core.tool_answers import tool_suggestion
from agent_lsp.errors import ToolError
from agent_lsp.model.base import FunctionResponse, Part

Status = Literal["success", "error", "cancelled"]


@dataclass(frozen=True)
class _Answered:
    """What a call that ends with an answer for the model carries: its response, the media parts its result
    brought, and ``stopped``: a hook said "continue": false, so the prompt ends after this batch, for this reason."""

    call_id: str
    name: str
    response: dict[str, Any]
    extra_parts: tuple[Part, ...] = ()
    stopped: str | None = None
    declined: ClassVar[bool] = False


@dataclass(frozen=True)
class Succeeded(_Answered):
    """The call ran and its tool answered."""

    status: ClassVar[Status] = "success"


@dataclass(frozen=True)
class Failed(_Answered):
    """The call is an error the model reads: invalid, denied, refused, failed in its tool or stopped by a hook."""

    status: ClassVar[Status] = "error"


@dataclass(frozen=True)
class Cancelled:
    """The call was cancelled; ``declined``: the user cancelled at its confirmation, so the prompt ends without
    asking the model again."""

    call_id: str
    name: str
    response: dict[str, Any]
    declined: bool = False
    status: ClassVar[Status] = "cancelled"
    stopped: ClassVar[str | None] = None
    extra_parts: ClassVar[tuple[Part, ...]] = ()


# A finished call, ready to become a functionResponse.
CallOutcome: TypeAlias = Succeeded | Failed | Cancelled


@dataclass(frozen=True)
class InvalidCall:
    """A call that cannot run (its tool is unknown or disabled, its arguments are wrong, or it was never looked
    up): it ends as an error (``error_type`` is Gemini CLI's) without being decided, asked about or executed."""

    request: ToolCallRequestInfo
    info: ev.ToolCallInfo
    error: str = "invalid call"
    error_type: str | None = None
    parallel: ClassVar[bool] = False


@dataclass(frozen=True)
class ReadyCall:
    """A validated call: its tool, its built invocation and the policy's decision (allow, ask or deny)."""

    request: ToolCallRequestInfo
    info: ev.ToolCallInfo
    tool: Tool
    invocation: ToolInvocation[Any]
    decision: Decision
    deny_reason: str = ""

    @property
    def parallel(self) -> bool:
        """Read-only calls nobody has to approve run side by side, unless the model asked this one to wait for
        the calls before it (``wait_for_previous``, Gemini CLI 0.61)."""
        waits = self.request.args.get("wait_for_previous") is True
        return self.decision == "allow" and self.tool.read_only and not waits


# A call of a batch once validated: what it is decides which steps it may take (Gemini CLI's scheduler states:
# an InvalidCall goes straight to "error"; a ReadyCall through awaiting_approval, scheduled, executing to its end).
PreparedCall: TypeAlias = InvalidCall | ReadyCall


@dataclass(frozen=True)
class RunningCall:
    """A ``ReadyCall`` executing (Gemini CLI's "executing"): the invocation that runs (a BeforeTool hook may have
    rewritten it) and when it started, which its ending's duration is measured from."""

    call: ReadyCall
    started: float

    @property
    def info(self) -> ev.ToolCallInfo:
        return self.call.info


def unprepared(request: ToolCallRequestInfo) -> InvalidCall:
    """A call known only by its request (the batch ended before it was looked up): enough to answer it."""
    return InvalidCall(request, ev.ToolCallInfo(request.call_id, request.name, request.args, request.name))


def prepare(registry: ToolSet, policy: ToolPolicy, request: ToolCallRequestInfo) -> PreparedCall:
    """Look the tool up (a disabled tool is "not found", as Gemini CLI says), check and build the call, describe
    it for the editor and ask the policy."""
    tool = registry.get(request.name)
    if tool is None or not policy.is_enabled(request.name, tool):
        names = [n for n in registry.names() if policy.is_enabled(n, registry.get(n))]
        error = f'Tool "{request.name}" not found.{tool_suggestion(request.name, names)}'
        return replace(unprepared(request), error=error, error_type="tool_not_registered")
    problem = tool.validate(request.args)
    invocation: ToolInvocation[Any] | None = None
    if problem is None:
        try:
            invocation = tool.build(request.args)
            invocation.call_id = request.call_id
        except ToolError as exc:
            problem = str(exc)
    if invocation is None or problem is not None:
        info = ev.ToolCallInfo(request.call_id, tool.name, request.args, tool.display_name, tool.kind, ())
        return InvalidCall(request, info, f"Invalid parameters for {tool.name}: {problem}", "invalid_tool_params")
    locations = tuple(invocation.locations())
    info = ev.ToolCallInfo(request.call_id, tool.name, request.args, invocation.describe(), tool.kind, locations)
    decision, deny_reason = policy.decide(tool, request.args)
    return ReadyCall(request, info, tool, invocation, decision, deny_reason)


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
