"""Approval on its own (core/approval.py): the question goes out after what came before it, and each answer
becomes its verdict: a refusal the model reads, the user's Stop, a rule remembered or saved, an edit applied."""

from __future__ import annotations

from typing import Any

from agent_lsp import events as ev
from agent_lsp.core.approval import APPROVED, Approval, Refusal, rejected_message
from agent_lsp.core.ports import ConfirmationResult
from agent_lsp.tools.base import OutputSink, ToolInvocation, ToolResult
from agent_lsp.tools.policy import Policy

from .conftest import RecordingConfirmer, TestTool


class _Fixed(ToolInvocation[dict[str, Any]]):
    """A call whose proposal cannot be edited (the base class's ``modifiable``: False)."""

    def describe(self) -> str:
        return "run as proposed"

    async def execute(self, output: OutputSink) -> ToolResult:
        return ToolResult(llm_content="ran")


class FixedTool(TestTool):
    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        return _Fixed(params)


EDIT = ev.ConfirmationDetails(
    type="edit", title="Edit", path="/tmp/file.txt", diff=ev.FileDiff("/tmp/file.txt", "a", "b")
)


class Asked:
    """An Approval with a real policy and a confirmer answering from a list; records the order of things."""

    def __init__(self, *answers: str, permanent: bool = False) -> None:
        self.order: list[str] = []
        self.saved: list[list[str]] = []
        self.policy = Policy(mode="default")
        self.confirmer = RecordingConfirmer(answers)
        self.approval = Approval(
            self.policy,
            self,  # type: ignore[arg-type]  # confirms through self, to record when it was asked
            lambda event: self.order.append(event.kind),
            delivered=self._delivered,
            on_save_rule=self.saved.append,
            permanent_approval=permanent,
        )

    async def _delivered(self) -> None:
        self.order.append("delivered")

    async def confirm(self, call: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> ConfirmationResult:
        self.order.append("asked")
        return await self.confirmer.confirm(call, details)

    async def ask(self, tool: TestTool, details: ev.ConfirmationDetails = EDIT, **params: Any) -> Any:
        invocation = tool.build(params)
        info = ev.ToolCallInfo("c1", tool.name, params, tool.name, tool.kind)
        return await self.approval.ask(info, tool, invocation, details), invocation


async def test_the_question_waits_for_what_came_before_and_a_no_is_read_by_the_model() -> None:
    asked = Asked("reject")
    verdict, _ = await asked.ask(TestTool("write", "edit"))
    assert asked.order == ["tool_call_status", "tool_call_confirmation", "delivered", "asked"]
    assert verdict == Refusal(rejected_message("write"))
    assert not verdict.declined  # the model answers in the same turn


async def test_cancel_is_the_users_stop() -> None:
    verdict, _ = await Asked("cancel").ask(TestTool("write", "edit"))
    assert isinstance(verdict, Refusal) and verdict.declined and verdict.status == "cancelled"


async def test_allow_always_is_remembered_by_the_policy_for_the_session() -> None:
    asked = Asked("proceed_always")
    tool = TestTool("write", "edit")
    assert asked.policy.decide(tool, {})[0] == "ask"
    verdict, _ = await asked.ask(tool)
    assert verdict is APPROVED
    assert asked.policy.decide(tool, {})[0] == "allow"  # not asked again this session
    assert asked.saved == []


async def test_save_is_offered_only_with_the_setting_and_writes_what_was_offered() -> None:
    tool = TestTool("write", "edit")
    plain = Asked("proceed_always_save")
    await plain.ask(tool)
    assert plain.saved == [] and not plain.confirmer.asked[0][1].savable  # not offered: an allow-always only
    offered = Asked("proceed_always_save", permanent=True)
    verdict, _ = await offered.ask(tool)
    assert verdict is APPROVED and offered.confirmer.asked[0][1].savable and offered.saved == [["write"]]


async def test_an_edited_proposal_is_applied_or_runs_nothing() -> None:
    asked = Asked("modify")
    asked.confirmer.modified = "the user's text"
    verdict, invocation = await asked.ask(TestTool("write", "edit"), x="proposal")
    assert verdict is APPROVED and invocation.params["x"] == "the user's text"

    refusing = Asked("modify")
    refusing.confirmer.modified = "edited"
    verdict, invocation = await refusing.ask(FixedTool("run", "execute"), x="as proposed")
    assert isinstance(verdict, Refusal) and verdict.error_type == "invalid_tool_params" and verdict.status == "error"
    assert "notice" in refusing.order and invocation.params["x"] == "as proposed"  # nothing of the edit ran
