"""A call's states as types (core/tool_calls.py): what validation makes of a request, and the three endings."""

from __future__ import annotations

import dataclasses

import pytest

from agent_lsp.core.tool import ToolCallRequestInfo
from agent_lsp.core.tool_calls import Cancelled, Failed, InvalidCall, ReadyCall, Succeeded, prepare, unprepared
from agent_lsp.tools.policy import Policy
from agent_lsp.tools.registry import ToolRegistry

from .conftest import TestTool

REGISTRY = ToolRegistry([TestTool("peek"), TestTool("write", "edit")])


def test_an_unknown_tool_is_an_invalid_call_with_a_suggestion() -> None:
    call = prepare(REGISTRY, Policy(mode="default"), ToolCallRequestInfo("c1", "peak", {}))
    assert isinstance(call, InvalidCall) and call.error_type == "tool_not_registered"
    assert call.error.startswith('Tool "peak" not found.') and "peek" in call.error
    assert not call.parallel


def test_bad_arguments_are_an_invalid_call_naming_the_tool() -> None:
    call = prepare(REGISTRY, Policy(mode="default"), ToolCallRequestInfo("c1", "peek", {"x": 3}))
    assert isinstance(call, InvalidCall) and call.error_type == "invalid_tool_params"
    assert call.error.startswith("Invalid parameters for peek:") and call.info.kind == "read"


def test_a_ready_call_carries_its_decision_and_runs_beside_others_only_when_nobody_asks() -> None:
    policy = Policy(mode="default")
    read = prepare(REGISTRY, policy, ToolCallRequestInfo("c1", "peek", {"x": "a"}))
    assert isinstance(read, ReadyCall) and read.decision == "allow" and read.parallel
    assert read.invocation.call_id == "c1" and read.info.title == "peek a"
    waits = prepare(REGISTRY, policy, ToolCallRequestInfo("c2", "peek", {"x": "a", "wait_for_previous": True}))
    assert isinstance(waits, ReadyCall) and not waits.parallel
    edit = prepare(REGISTRY, policy, ToolCallRequestInfo("c3", "write", {"x": "a"}))
    assert isinstance(edit, ReadyCall) and edit.decision == "ask" and not edit.parallel
    assert prepare(REGISTRY, Policy(mode="yolo"), ToolCallRequestInfo("c4", "write", {})).decision == "allow"  # type: ignore[union-attr]


def test_each_ending_has_its_status_and_is_frozen() -> None:
    ok = Succeeded("c1", "peek", {"output": "x"})
    failed = Failed("c2", "peek", {"error": "no"}, stopped="a hook said stop")
    stopped = Cancelled("c3", "write", {"error": "Cancelled by the user."}, declined=True)
    assert [ok.status, failed.status, stopped.status] == ["success", "error", "cancelled"]
    assert not ok.declined and not failed.declined and stopped.declined
    assert failed.stopped == "a hook said stop" and stopped.stopped is None and stopped.extra_parts == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        ok.response = {}  # type: ignore[misc]
    never_reached = unprepared(ToolCallRequestInfo("c9", "write", {"x": "b"}))
    assert never_reached.info.name == "write" and never_reached.error == "invalid call"
