"""write_todos: the agent's task list for a multi-step request, shown to the user as a plan."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_lsp.errors import ToolError
from agent_lsp.events import PlanEntry, PlanStatus
from agent_lsp.tools.base import OutputSink, Tool, ToolInvocation, ToolResult
from agent_lsp.tools.context import ToolContext

STATUSES: tuple[PlanStatus, ...] = ("pending", "in_progress", "completed", "cancelled", "blocked")

_DESCRIPTION = """Replaces your to-do list for the current request with the full list given here.

Use it for requests that take several distinct steps (three or more), so the user can follow progress;
skip it for simple one-step requests. Each call sends the complete list, not a change:
- Before starting, list the steps as "pending".
- Mark a step "in_progress" when you start it; at most one step is in progress at a time.
- Mark it "completed" as soon as it is done, "cancelled" if it is no longer needed, and "blocked" if it
  cannot go on until something else happens.
- Add, split or reword steps as you learn more; keep finished steps in the list."""


@dataclass(frozen=True)
class TodosParams:
    entries: tuple[PlanEntry, ...]


class WriteTodosTool(Tool):
    name = "write_todos"
    display_name = "WriteTodos"
    description = _DESCRIPTION
    kind = "think"
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "description": "The complete to-do list, in order.",
                "items": {
                    "type": "object",
                    "properties": {
                        "description": {"type": "string", "description": "What the step is."},
                        "status": {"type": "string", "enum": list(STATUSES), "description": "Where the step is."},
                    },
                    "required": ["description", "status"],
                },
            }
        },
        "required": ["todos"],
    }

    def __init__(self, ctx: ToolContext | None = None) -> None:
        # The shared constructor shape; the tool needs nothing from the context.
        self.ctx = ctx

    def check(self, params: dict[str, Any]) -> str | None:
        in_progress = 0
        for i, item in enumerate(params["todos"]):
            if not isinstance(item, dict):
                return f"params/todos/{i} must be an object with description and status"
            description = item.get("description")
            if not isinstance(description, str) or not description.strip():
                return f"params/todos/{i}/description must be a non-empty string"
            status = item.get("status")
            if status not in STATUSES:
                return f"params/todos/{i}/status must be one of {', '.join(STATUSES)}"
            in_progress += status == "in_progress"
        if in_progress > 1:
            return f"Only one task can be in_progress at a time; {in_progress} are."
        return None

    def build(self, params: dict[str, Any]) -> WriteTodosInvocation:
        problem = self.validate(params)
        if problem:
            raise ToolError(problem, "invalid_params")
        entries = tuple(PlanEntry(content=t["description"].strip(), status=t["status"]) for t in params["todos"])
        return WriteTodosInvocation(TodosParams(entries))


class WriteTodosInvocation(ToolInvocation[TodosParams]):
    def describe(self) -> str:
        entries = self.params.entries
        if not entries:
            return "Clear the to-do list"
        done = sum(e.status == "completed" for e in entries)
        return f"Update the to-do list ({done}/{len(entries)} done)"

    async def execute(self, output: OutputSink) -> ToolResult:
        entries = self.params.entries
        if not entries:
            text = "The to-do list is now empty."
        else:
            listed = "\n".join(f"{n}. [{e.status}] {e.content}" for n, e in enumerate(entries, start=1))
            text = f"The to-do list is updated. It now reads:\n{listed}"
        marks = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]", "cancelled": "[-]", "blocked": "[!]"}
        display = "\n".join(f"- {marks[e.status]} {e.content}" for e in entries) or "(no tasks)"
        return ToolResult(llm_content=text, display=display, plan=entries)
