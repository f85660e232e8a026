"""Builders for core tests: scripted replay responses, small real tools, and a session wired like production."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from agent_lsp import events as ev
from agent_lsp.core.approval import Approval
from agent_lsp.core.call_results import AnswerOptions
from agent_lsp.core.ports import AutoConfirmer, ConfirmationResult, Confirmer
from agent_lsp.core.retry import RetryPolicy
from agent_lsp.core.scheduler import Scheduler
from agent_lsp.core.session import Session
from agent_lsp.core.session_state import SessionDeps, SessionOptions, SessionState
from agent_lsp.model.replay import ReplayModel
from agent_lsp.tools.base import OutputSink, Tool, ToolInvocation, ToolResult
from agent_lsp.tools.policy import Policy
from agent_lsp.tools.registry import ToolRegistry
from agent_lsp.vocabulary import ApprovalMode


def text_chunks(*texts: str, finish: str = "STOP", prompt_tokens: int = 10) -> dict[str, Any]:
    chunks: list[dict[str, Any]] = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": t}]}}]} for t in texts
    ]
    chunks[-1]["candidates"][0]["finishReason"] = finish
    chunks[-1]["usageMetadata"] = {
        "promptTokenCount": prompt_tokens,
        "candidatesTokenCount": 5,
        "totalTokenCount": prompt_tokens + 5,
    }
    return {"method": "generateContentStream", "response": chunks}


def call_chunks(*calls: tuple[str, dict[str, Any]], text: str | None = None, prompt_tokens: int = 10) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": text}] if text else []
    parts += [{"functionCall": {"name": n, "args": a, "id": f"id-{i}-{n}"}} for i, (n, a) in enumerate(calls)]
    return {
        "method": "generateContentStream",
        "response": [
            {
                "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
                "usageMetadata": {"promptTokenCount": prompt_tokens, "totalTokenCount": prompt_tokens + 3},
            }
        ],
    }


class _Inv(ToolInvocation[dict[str, Any]]):
    def __init__(self, tool: TestTool, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.tool = tool

    def describe(self) -> str:
        return f"{self.tool.name} {self.params.get('x', '')}".strip()

    def locations(self) -> list[ev.Location]:
        return [ev.Location("/tmp/file.txt", 1)]

    async def confirmation(self) -> ev.ConfirmationDetails | None:
        if self.tool.kind == "read":
            return None
        return ev.ConfirmationDetails(
            type="edit", title="Edit", path="/tmp/file.txt", diff=ev.FileDiff("/tmp/file.txt", "a", "b")
        )

    @property
    def modifiable(self) -> bool:
        return True

    def apply_modification(self, new_content: str) -> None:
        self.params = {**self.params, "x": new_content}

    async def execute(self, output: OutputSink) -> ToolResult:
        self.tool.started.append(self.params.get("x"))
        if self.tool.delay:
            output("working…")
            await asyncio.sleep(self.tool.delay)
        if self.params.get("fail"):
            return ToolResult(llm_content="it failed", error="it failed")
        self.tool.done.append(self.params.get("x"))
        return ToolResult(llm_content=f"{self.tool.name} ok {self.params.get('x', '')}", display="ok")


class TestTool(Tool):
    """A real Tool with observable side effects (what started, what finished)."""

    __test__ = False

    def __init__(self, name: str, kind: ev.ToolKind = "read", delay: float = 0.0) -> None:
        self.name = name
        self.display_name = name
        self.description = f"test tool {name}"
        self.kind = kind
        self.delay = delay
        self.parameters = {"type": "object", "properties": {"x": {"type": "string"}, "fail": {"type": "boolean"}}}
        self.started: list[Any] = []
        self.done: list[Any] = []

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        return _Inv(self, params)


class RecordingConfirmer:
    def __init__(self, answers: Sequence[str] = ()) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[ev.ToolCallInfo, ev.ConfirmationDetails]] = []
        self.modified: str | None = None

    async def confirm(self, call: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> ConfirmationResult:
        self.asked.append((call, details))
        outcome = self.answers.pop(0) if self.answers else "proceed_once"
        return ConfirmationResult(outcome, self.modified)  # type: ignore[arg-type]


def make_session(
    lines: list[dict[str, Any]],
    tools: Sequence[Tool] = (),
    *,
    tmp_path: Path,
    confirmer: Confirmer | None = None,
    mode: ApprovalMode = "default",
    options: SessionOptions | None = None,
    chunk_delay: float = 0.0,
    **deps: Any,
) -> tuple[Session, ReplayModel]:
    """A session over a replay model; ``deps`` are more of its SessionDeps (commands, expand_prompt, on_history)."""
    model = ReplayModel(lines, chunk_delay=chunk_delay)
    registry = ToolRegistry(tools)
    policy = Policy(mode=mode)
    conf = confirmer or AutoConfirmer()
    opts = options or SessionOptions(retry=RetryPolicy(initial_delay_s=0.01, max_delay_s=0.05))

    def scheduler_factory(emit: Any, history: Any, delivered: Any) -> Scheduler:
        approval = Approval(policy, conf, emit, delivered=delivered)
        return Scheduler(registry, policy, approval, emit, answers=AnswerOptions(tmp_path), history=history)

    parts = SessionDeps(
        registry=registry,
        policy=policy,
        scheduler_factory=scheduler_factory,
        system_prompt=lambda: "system",
        options=opts,
        **deps,
    )
    return Session(parts, SessionState(client=model, model="gemini-2.5-pro")), model


async def collect(session: Session, prompt: str) -> list[ev.AgentEvent]:
    return [e async for e in session.send(prompt)]


def kinds(events: Sequence[ev.AgentEvent]) -> list[str]:
    return [e.kind for e in events]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
