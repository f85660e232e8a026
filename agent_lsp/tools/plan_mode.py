"""enter_plan_mode: the model asks to switch the session to the read-only plan mode (the user confirms, as in
Gemini CLI 0.61; headless it switches at once)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_lsp.events import ConfirmationDetails
from agent_lsp.tools.base import OutputSink, Tool, ToolInvocation, ToolResult

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
