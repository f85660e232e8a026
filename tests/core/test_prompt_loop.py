"""PromptLoop on its own: handed a state, frozen deps and an ``emit``, never a Session (core/prompt_loop.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_lsp import events as ev
from agent_lsp.core.approval import Approval
from agent_lsp.core.call_results import AnswerOptions
from agent_lsp.core.ports import AutoConfirmer
from agent_lsp.core.prompt_loop import PromptLoop
from agent_lsp.core.retry import RetryPolicy
from agent_lsp.core.scheduler import Scheduler
from agent_lsp.core.session_state import SessionDeps, SessionOptions, SessionState
from agent_lsp.model.base import Part
from agent_lsp.model.replay import ReplayModel
from agent_lsp.tools.base import Tool
from agent_lsp.tools.policy import Policy
from agent_lsp.tools.registry import ToolRegistry

from .conftest import TestTool, call_chunks, text_chunks


class Loop:
    """A PromptLoop over a replay model, with what it emitted and how often it waited for delivery."""

    def __init__(self, lines: list[dict[str, Any]], tools: Sequence[Tool], tmp_path: Path, **options: Any) -> None:
        self.model = ReplayModel(lines)
        self.events: list[ev.AgentEvent] = []
        self.waits = 0
        registry, policy = ToolRegistry(tools), Policy(mode="yolo")

        def scheduler(emit: Any, history: Any, delivered: Any) -> Scheduler:
            approval = Approval(policy, AutoConfirmer(), emit, delivered=delivered)
            return Scheduler(registry, policy, approval, emit, answers=AnswerOptions(tmp_path), history=history)

        retry = RetryPolicy(initial_delay_s=0.01, max_delay_s=0.05)
        deps = SessionDeps(
            registry=registry,
            policy=policy,
            scheduler_factory=scheduler,
            system_prompt=lambda: "system",
            options=SessionOptions(retry=retry, **options),
        )
        self.state = SessionState(client=self.model, model="gemini-2.5-pro")
        self.loop = PromptLoop(self.state, deps, self.events.append, self._delivered)

    async def _delivered(self) -> None:
        self.waits += 1

    async def run(self, text: str) -> ev.StopReason:
        mark = self.state.history.mark()
        self.state.history.add_user([Part(text=text)])
        return await self.loop.run(text, mark)


async def test_a_text_answer_is_one_turn_recorded_in_the_state(tmp_path: Path) -> None:
    run = Loop([text_chunks("Hel", "lo", prompt_tokens=42)], [], tmp_path)
    assert await run.run("hi") == "end_turn"
    assert [c.role for c in run.state.history.contents()] == ["user", "model"]
    assert run.state.history.contents()[1].parts[0].text == "Hello"
    assert run.state.session_turns == 1 and run.state.last_prompt_tokens == 42
    assert [e.text for e in run.events if isinstance(e, ev.Content)] == ["Hel", "lo"]
    assert [e.kind for e in run.events][-1] == "finished"  # Stop is the Session's to emit, not the loop's


async def test_calls_go_round_until_the_model_stops_asking(tmp_path: Path) -> None:
    peek = TestTool("peek")
    run = Loop([call_chunks(("peek", {"x": "a"})), text_chunks("done")], [peek], tmp_path)
    assert await run.run("look") == "end_turn"
    assert peek.done == ["a"]
    roles = [c.role for c in run.state.history.contents()]
    assert roles == ["user", "model", "user", "model"]  # the call's answer went back before the last turn
    response = run.state.history.contents()[2].parts[0].function_response
    assert response is not None and response.name == "peek" and "peek ok a" in str(response.response)
    assert run.state.session_turns == 2


async def test_the_session_turn_limit_stops_the_loop_and_says_so(tmp_path: Path) -> None:
    peek = TestTool("peek")
    lines = [call_chunks(("peek", {"x": "a"})), call_chunks(("peek", {"x": "b"})), text_chunks("never")]
    run = Loop(lines, [peek], tmp_path, max_session_turns=2)
    assert await run.run("look twice") == "max_turn_requests"
    assert peek.done == ["a", "b"]
    assert [e.limit for e in run.events if isinstance(e, ev.MaxSessionTurns)] == [2]
    assert run.model.remaining == 1  # the third request was never sent
