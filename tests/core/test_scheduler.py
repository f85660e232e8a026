"""The scheduler on its own: error types on responses, when "allow in all future sessions" is offered, edits to
proposals that cannot take them, and the error type's JSON round trip."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from agent_lsp import event_json
from agent_lsp import events as ev
from agent_lsp.core.approval import Approval
from agent_lsp.core.call_results import AnswerOptions
from agent_lsp.core.scheduler import Scheduler
from agent_lsp.core.tool import OutputSink, Tool, ToolCallRequestInfo, ToolInvocation, ToolResult
from agent_lsp.core.tool_calls import CallOutcome, Succeeded
from agent_lsp.errors import ToolError
from agent_lsp.tools.policy import Policy
from agent_lsp.tools.registry import ToolRegistry
from tests.core.conftest import RecordingConfirmer, TestTool

pytestmark = pytest.mark.anyio


class _Fixed(ToolInvocation[dict[str, Any]]):
    """Proposes an edit it cannot take back edited, or fails the way it is told."""

    def __init__(self, params: dict[str, Any], mode: str, details: ev.ConfirmationDetails | None) -> None:
        super().__init__(params)
        self.mode = mode
        self.details = details
        self.ran = False

    def describe(self) -> str:
        return "fixed"

    async def confirmation(self) -> ev.ConfirmationDetails | None:
        edit = ev.ConfirmationDetails(type="edit", title="Edit", path="/tmp/x", diff=ev.FileDiff("/tmp/x", "a", "b"))
        return self.details or edit

    async def execute(self, output: OutputSink) -> ToolResult:
        self.ran = True
        if self.mode == "raise":
            raise ToolError("no such file", "file_not_found")
        if self.mode == "untyped":
            return ToolResult(llm_content="failed", error="failed")
        if self.mode == "crash":
            raise RuntimeError("boom")
        return ToolResult(llm_content="done")


class FixedTool(Tool):
    def __init__(
        self, name: str, mode: str = "ok", server: str | None = None, details: ev.ConfirmationDetails | None = None
    ) -> None:
        self.name, self.display_name, self.description = name, name, name
        self.kind: ev.ToolKind = "edit"
        self.parameters = {"type": "object", "properties": {}}
        self.mode = mode
        self.server = server
        self.details = details
        self.built: list[_Fixed] = []

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        self.built.append(_Fixed(params, self.mode, self.details))
        return self.built[-1]


def scheduler(
    tmp_path: Path, tools: list[Tool], confirmer: Any, *, mode: str = "yolo", **kw: Any
) -> tuple[Scheduler, list[ev.AgentEvent]]:
    """A scheduler over ``tools``; ``kw``: ``interactive`` for the policy, the rest for its Approval."""
    events: list[ev.AgentEvent] = []
    policy = Policy(mode=mode, interactive=kw.pop("interactive", True))  # type: ignore[arg-type]
    approval = Approval(policy, confirmer, events.append, **kw)
    return Scheduler(ToolRegistry(tools), policy, approval, events.append, answers=AnswerOptions(tmp_path)), events


async def run(s: Scheduler, *calls: tuple[str, dict[str, Any]]) -> dict[str, CallOutcome]:
    outcomes: dict[str, CallOutcome] = {}
    await s.run([ToolCallRequestInfo(f"c{i}", n, a) for i, (n, a) in enumerate(calls)], outcomes)
    return outcomes


def responses(events: list[ev.AgentEvent]) -> list[tuple[str, str | None]]:
    return [(e.status, e.error_type) for e in events if isinstance(e, ev.ToolCallResponse)]


async def test_every_failure_names_its_gemini_cli_error_type(tmp_path: Path) -> None:
    tools: list[Tool] = [FixedTool("raises", "raise"), FixedTool("untyped", "untyped"), FixedTool("crash", "crash")]
    tools.append(TestTool("read"))
    s, events = scheduler(tmp_path, tools, RecordingConfirmer())
    await run(s, ("raises", {}), ("untyped", {}), ("crash", {}), ("nope", {}), ("read", {"x": 3}), ("read", {}))
    assert responses(events) == [
        ("error", "file_not_found"),  # the tool's own type
        ("error", "execution_failed"),  # a failed result without one
        ("error", "unhandled_exception"),  # a tool bug
        ("error", "tool_not_registered"),
        ("error", "invalid_tool_params"),
        ("success", None),
    ]


async def test_denied_and_unaskable_calls(tmp_path: Path) -> None:
    import re

    from agent_lsp.policy.rules import PolicyRule

    # Narrowed by arguments, so the tool stays declared and the call reaches the decision.
    deny = PolicyRule("edit", "deny", 900, args_pattern=re.compile("secret"))
    ask = PolicyRule("edit", "ask_user", 900, args_pattern=re.compile("maybe"))
    events: list[ev.AgentEvent] = []
    for interactive, rules, args in ((True, [deny], {"x": "secret"}), (False, [ask], {"x": "maybe"})):
        policy = Policy(mode="yolo", interactive=interactive, rules=rules)
        confirmer = RecordingConfirmer()
        registry = ToolRegistry([TestTool("edit", kind="edit")])
        approval = Approval(policy, confirmer, events.append)
        s = Scheduler(registry, policy, approval, events.append, answers=AnswerOptions(tmp_path))
        await run(s, ("edit", args))
    assert responses(events) == [("error", "policy_violation"), ("error", "unhandled_exception")]  # as Gemini CLI


async def test_rejected_and_cancelled_calls_carry_no_error_type(tmp_path: Path) -> None:
    s, events = scheduler(tmp_path, [FixedTool("a"), FixedTool("b")], RecordingConfirmer(["reject", "cancel"]))
    s.policy.set_mode("default")
    await run(s, ("a", {}), ("b", {}))
    assert responses(events) == [("cancelled", None), ("cancelled", None)]


@pytest.mark.parametrize(
    ("permanent", "saver", "expected"),
    [(True, True, True), (False, True, False), (True, False, False)],
)
async def test_savable_only_with_the_setting_and_a_place_to_save(
    tmp_path: Path, permanent: bool, saver: bool, expected: bool
) -> None:
    saved: list[list[str]] = []
    confirmer = RecordingConfirmer(["proceed_always_save"])
    s, _ = scheduler(
        tmp_path,
        [FixedTool("edit", server="srv")],
        confirmer,
        mode="default",
        permanent_approval=permanent,
        on_save_rule=saved.append if saver else None,
    )
    await run(s, ("edit", {}))
    assert [d.savable for _c, d in confirmer.asked] == [expected]
    # An MCP tool's saved rule names its server, so it can never match a built-in of the same name.
    assert saved == ([["mcp_srv_edit"]] if expected else [])


async def test_a_shell_line_that_runs_no_program_is_never_savable(tmp_path: Path) -> None:
    saved: list[list[str]] = []
    no_roots = ev.ConfirmationDetails(type="exec", title="Shell", command="x=1", root_commands=())
    with_roots = ev.ConfirmationDetails(type="exec", title="Shell", command="git status", root_commands=("git",))
    for details in (no_roots, with_roots):
        confirmer = RecordingConfirmer(["proceed_always_save"])
        tool = FixedTool("run_shell_command", details=details)
        s, _ = scheduler(
            tmp_path, [tool], confirmer, mode="default", permanent_approval=True, on_save_rule=saved.append
        )
        await run(s, ("run_shell_command", {}))
        assert [d.savable for _c, d in confirmer.asked] == [details is with_roots]
    assert saved == [["run_shell_command(git)"]]


async def test_an_edit_sent_back_for_a_call_that_cannot_take_it_runs_nothing(tmp_path: Path) -> None:
    tool = FixedTool("fixed")
    confirmer = RecordingConfirmer(["modify"])
    confirmer.modified = "my version"
    s, events = scheduler(tmp_path, [tool], confirmer, mode="default")
    outcomes = await run(s, ("fixed", {}))
    assert not tool.built[0].ran
    assert outcomes["c0"].status == "error" and "cannot apply edits" in outcomes["c0"].response["error"]
    assert any(isinstance(e, ev.Notice) and "cannot apply an edited proposal" in e.message for e in events)


async def test_an_edit_to_a_modifiable_call_is_applied(tmp_path: Path) -> None:
    tool = TestTool("editor", kind="edit")
    confirmer = RecordingConfirmer(["modify"])
    confirmer.modified = "edited"
    s, _ = scheduler(tmp_path, [tool], confirmer, mode="default")
    outcomes = await run(s, ("editor", {"x": "original"}))
    assert tool.done == ["edited"] and outcomes["c0"].status == "success"


def test_error_type_round_trips_and_old_recordings_still_load() -> None:
    event = ev.ToolCallResponse("c1", "read_file", "error", error="gone", error_type="file_not_found")
    assert event_json.event_from_dict(event_json.event_to_dict(event)) == event
    old = {"kind": "tool_call_response", "call_id": "c1", "name": "read_file", "status": "error", "error": "gone"}
    loaded = event_json.event_from_dict(old)
    assert isinstance(loaded, ev.ToolCallResponse) and loaded.error_type is None


async def test_each_ending_is_its_own_frozen_type(tmp_path: Path) -> None:
    """A call ends Succeeded, Failed or Cancelled (Gemini CLI's success / error / cancelled states): the user's Stop
    is a Cancelled that was declined, the rest of the batch Cancelled behind it, and an ending cannot change."""
    tools: list[Tool] = [FixedTool("ok"), FixedTool("raises", "raise"), FixedTool("asked"), FixedTool("after")]
    s, events = scheduler(tmp_path, tools, RecordingConfirmer(["proceed_once", "proceed_once", "cancel"]))
    s.policy.set_mode("default")
    outcomes = await run(s, ("ok", {}), ("raises", {}), ("asked", {}), ("after", {}))
    kinds = [(type(o).__name__, o.status, o.declined) for o in outcomes.values()]
    assert kinds == [
        ("Succeeded", "success", False),
        ("Failed", "error", False),
        ("Cancelled", "cancelled", True),
        ("Cancelled", "cancelled", False),
    ]
    assert isinstance(outcomes["c0"], Succeeded) and outcomes["c0"].response == {"output": "done"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcomes["c0"].response = {}  # type: ignore[misc]
    ran = [e.duration_ms for e in events if isinstance(e, ev.ToolCallResponse)]
    assert ran[2:] == [0.0, 0.0]  # only a call that ran (a RunningCall) has a duration
