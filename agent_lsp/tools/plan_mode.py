"""enter_plan_mode and exit_plan_mode: the model asks to switch the session to the read-only plan mode, and to
leave it with a plan the user approves (both confirmed by the user, as in Gemini CLI 0.61; headless at once)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_lsp.events import ConfirmationDetails
from agent_lsp.tools.base import OutputSink, Tool, ToolInvocation, ToolResult
from agent_lsp.vocabulary import ApprovalMode

ENTER_PLAN_MODE = "enter_plan_mode"
_DESCRIPTION = (
    "Switches the session to plan mode, where only read-only tools run, to research and design a complex change "
    "safely before making it."
)


@dataclass(frozen=True)
class EnterParams:
    reason: str | None


class EnterPlanModeTool(Tool):
    name = ENTER_PLAN_MODE
    display_name = "Enter Plan Mode"
    description = _DESCRIPTION
    kind = "switch_mode"  # the policy's rules for it go by name (policy/defaults.py)
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {"reason": {"type": "string", "description": "In a few words, why plan mode is needed."}},
    }

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        reason = params.get("reason")
        return _Enter(EnterParams(str(reason).strip() or None if reason is not None else None))


class _Enter(ToolInvocation[EnterParams]):
    def describe(self) -> str:
        return self.params.reason or "Initiating Plan Mode"

    async def confirmation(self) -> ConfirmationDetails:
        return ConfirmationDetails(
            type="info",
            title="Enter Plan Mode",
            prompt="This will restrict the agent to read-only tools to allow for safe planning.",
        )

    async def execute(self, output: OutputSink) -> ToolResult:
        # The scheduler switches the mode (it holds the policy) and tells the editors, as for any mode change.
        reason = self.params.reason
        display = f"Switching to Plan mode: {reason}" if reason else "Switching to Plan mode"
        return ToolResult(llm_content="Switching to Plan mode.", display=display, mode="plan")


EXIT_PLAN_MODE = "exit_plan_mode"
_EXIT_DESCRIPTION = (
    "Presents the finished plan (a file you wrote in the plans folder) for the user's approval and, once approved, "
    "leaves plan mode so the work can start. Agree on the approach with the user in the chat first. Source files "
    "can only be changed after this."
)
_PLAN_NAME = re.compile(r"^[\w-]+\.md$")


@dataclass(frozen=True)
class ExitParams:
    plan: Path


class ExitPlanModeTool(Tool):
    name = EXIT_PLAN_MODE
    display_name = "Exit Plan Mode"
    description = _EXIT_DESCRIPTION
    kind = "switch_mode"
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "plan_filename": {
                "type": "string",
                "description": 'The plan\'s file name in the plans folder (for example "feature-x.md"), not a path.',
            }
        },
        "required": ["plan_filename"],
    }

    def __init__(self, plans: Path, *, interactive: bool) -> None:
        self.plans = plans
        # Approved with nobody to ask (headless), the work goes on in yolo, as 0.61 does; in an editor, default.
        self.next_mode: ApprovalMode = "default" if interactive else "yolo"

    def check(self, params: dict[str, Any]) -> str | None:
        name = str(params["plan_filename"]).strip()
        if not _PLAN_NAME.match(name):
            return (
                f"plan_filename must be a file name like 'feature-x.md' in the plans folder {self.plans}, not a path."
            )
        path = self.plans / name
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return f"Plan file does not exist: {path}. Write the plan there with write_file first."
        if not text.strip():
            return f"Plan file is empty: {path}. Write the plan first."
        return None

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        return _Exit(ExitParams(self.plans / str(params["plan_filename"]).strip()), self.next_mode)


class _Exit(ToolInvocation[ExitParams]):
    def __init__(self, params: ExitParams, next_mode: ApprovalMode) -> None:
        super().__init__(params)
        self.next_mode = next_mode

    def describe(self) -> str:
        return f"Requesting plan approval for: {self.params.plan}"

    async def confirmation(self) -> ConfirmationDetails:
        plan = self.params.plan.read_text(encoding="utf-8", errors="replace")
        return ConfirmationDetails(type="info", title="Plan Approval", prompt=plan)

    async def execute(self, output: OutputSink) -> ToolResult:
        # Reached only once approved (a rejection answers the call before it runs).
        names = {
            "default": "Default mode (edits will require confirmation)",
            "yolo": "YOLO mode (all tool calls auto-approved)",
        }
        text = (
            f"Plan approved. Switching to {names.get(self.next_mode, self.next_mode)}.\n\n"
            f"The approved implementation plan is stored at: {self.params.plan}\n"
            "Read and follow the plan strictly during implementation."
        )
        return ToolResult(llm_content=text, display=f"Plan approved: {self.params.plan}", mode=self.next_mode)
