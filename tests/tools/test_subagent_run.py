"""A subagent run in process, on the replay model and small real tools: the main session's policy and confirmer
decide its calls, its time limit stops it, and cancelling the call cancels what it is running."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

from agent_lsp import events as ev
from agent_lsp.core.approval import Approval
from agent_lsp.core.call_results import AnswerOptions
from agent_lsp.core.retry import RetryPolicy
from agent_lsp.core.scheduler import Scheduler
from agent_lsp.core.session_state import SessionOptions, SessionState
from agent_lsp.model.replay import ReplayModel
from agent_lsp.runtime.agents import OriginConfirmer
from agent_lsp.tools.invoke_agent import InvokeAgentTool
from agent_lsp.tools.policy import Policy
from agent_lsp.tools.registry import ToolRegistry
from agent_lsp.tools.subagent_run import SubagentParts
from agent_lsp.tools.subagents import BUILT_IN, AgentDefinition
from tests.core.conftest import RecordingConfirmer, TestTool, call_chunks, text_chunks

GENERALIST = next(a for a in BUILT_IN if a.name == "generalist")


def parts(
    lines: list[dict[str, Any]],
    tools: list[TestTool],
    confirmer: RecordingConfirmer,
    tmp: Path,
    forwarded: list[ev.AgentEvent] | None = None,
) -> SubagentParts:
    policy = Policy(mode="default")
    model = ReplayModel(lines)

    def scheduler(registry: Any, emit: Any, history: Any, delivered: Any, origin: Any = None) -> Scheduler:
        asked = confirmer if origin is None else OriginConfirmer(confirmer, origin)
        approval = Approval(policy, asked, emit, delivered=delivered)
        return Scheduler(registry, policy, approval, emit, answers=AnswerOptions(tmp), history=history)

    options = SessionOptions(retry=RetryPolicy(initial_delay_s=0.01, max_delay_s=0.05))
    return SubagentParts(
        registry=ToolRegistry(tools),
        policy=policy,
        state=lambda model_name: SessionState(client=model, model=model_name or "gemini-2.5-pro"),
        scheduler=scheduler,
        system_prompt=lambda: "main system prompt",
        options=lambda turns: dataclasses.replace(options, max_session_turns=turns),
        emit=forwarded.append if forwarded is not None else (lambda _e: None),
    )


async def invoke(agent: AgentDefinition, p: SubagentParts, prompt: str = "do it") -> tuple[Any, list[str]]:
    shown: list[str] = []
    tool = InvokeAgentTool([agent], p)
    invocation = tool.build({"agent_name": agent.name, "prompt": prompt})
    invocation.call_id = "parent-call-1"
    result = await invocation.execute(shown.append)
    return result, shown


async def test_its_events_reach_the_parent_stream_in_order_with_their_origin(tmp_path: Path) -> None:
    edit = TestTool("edit_thing", kind="edit")
    confirmer = RecordingConfirmer(["proceed_once"])
    forwarded: list[ev.AgentEvent] = []
    p = parts(
        [call_chunks(("edit_thing", {"x": "a"})), call_chunks(("complete_task", {"result": {"response": "ok"}}))],
        [edit],
        confirmer,
        tmp_path,
        forwarded,
    )
    result, _shown = await invoke(GENERALIST, p)
    assert result.error is None, result.llm_content
    assert forwarded and all(isinstance(e, ev.SubagentEvent) for e in forwarded)
    origins = {e.origin for e in forwarded if isinstance(e, ev.SubagentEvent)}
    [origin] = origins
    assert origin.parent_call_id == "parent-call-1" and origin.agent == GENERALIST.name and origin.child_session_id
    inner = [e.event.kind for e in forwarded if isinstance(e, ev.SubagentEvent)]
    assert inner[0] == "user_message"  # the task, as the child's first message
    request = inner.index("tool_call_request")
    assert inner.index("tool_call_confirmation") > request  # the question after its call, in the same stream
    assert inner[-1] == "stop"
    calls = [
        e.event.call.name for e in forwarded if isinstance(e, ev.SubagentEvent) and e.event.kind == "tool_call_request"
    ]
    assert calls == ["edit_thing"]  # complete_task is how the run ends, not one of its steps
    responses = [e.event for e in forwarded if isinstance(e, ev.SubagentEvent) and e.event.kind == "tool_call_response"]
    assert [r.name for r in responses] == ["edit_thing"]
    [(asked, _details)] = confirmer.asked
    assert asked.origin == origin  # the question says whose call it is


async def test_its_calls_are_asked_about_like_the_main_sessions(tmp_path: Path) -> None:
    edit = TestTool("edit_thing", kind="edit")
    confirmer = RecordingConfirmer(["proceed_once"])
    p = parts(
        [call_chunks(("edit_thing", {"x": "a"})), call_chunks(("complete_task", {"result": {"response": "ok"}}))],
        [edit],
        confirmer,
        tmp_path,
    )
    result, shown = await invoke(GENERALIST, p)
    assert result.error is None, result.llm_content
    [(asked, _details)] = confirmer.asked  # default mode: the subagent's edit was asked about
    assert asked.name == "edit_thing" and edit.done == ["a"]
    assert any("edit_thing" in line for line in shown)


async def test_its_time_limit_stops_it(tmp_path: Path) -> None:
    slow = TestTool("slow", delay=5.0)
    agent = dataclasses.replace(GENERALIST, max_minutes=0.3 / 60)
    p = parts([call_chunks(("slow", {"x": "1"}))], [slow], RecordingConfirmer(), tmp_path)
    started = asyncio.get_running_loop().time()
    result, _ = await invoke(agent, p)
    assert asyncio.get_running_loop().time() - started < 3
    assert result.error is not None and "ran out of time (Termination Reason: TIMEOUT)" in result.error
    assert slow.started == ["1"] and slow.done == []  # its running call was cancelled


async def test_cancelling_the_call_cancels_the_subagent(tmp_path: Path) -> None:
    slow = TestTool("slow", delay=5.0)
    p = parts([call_chunks(("slow", {"x": "1"}))], [slow], RecordingConfirmer(), tmp_path)
    task = asyncio.create_task(invoke(GENERALIST, p))
    for _ in range(200):
        if slow.started:
            break
        await asyncio.sleep(0.01)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    else:
        raise AssertionError("the call was not cancelled")
    assert slow.started == ["1"] and slow.done == []


async def test_the_generalist_has_the_sessions_prompt_and_tools(tmp_path: Path) -> None:
    seen = TestTool("look")
    model_lines = [call_chunks(("complete_task", {"result": {"response": "fine"}})), text_chunks("unused")]
    p = parts(model_lines, [seen], RecordingConfirmer(), tmp_path)
    result, _ = await invoke(GENERALIST, p, "check")
    model = p.state(None).client
    assert isinstance(model, ReplayModel)
    [(_method, request)] = model.requests
    assert request.system_instruction == "main system prompt"
    assert [d.name for d in request.tools] == ["look", "complete_task"]
    assert [c.role for c in request.contents] == ["user"]  # a history of its own: just its task
    assert result.llm_content == "Subagent 'generalist' finished.\nTermination Reason: GOAL\nResult:\n" + (
        '{\n  "response": "fine"\n}'
    )
