"""invoke_agent: the model hands a task to a named subagent, which works in its own history with its own tools
and limits and returns a report (Gemini CLI 0.61's subagents)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent_lsp.tools.base import OutputSink, Tool, ToolInvocation, ToolResult
from agent_lsp.tools.subagent_run import SubagentParts, SubagentRun
from agent_lsp.tools.subagents import AgentDefinition
from agent_lsp.tools.wait_param import with_wait_for_previous

INVOKE_AGENT = "invoke_agent"
_LIMITS = {
    "TIMEOUT": "it ran out of time",
    "MAX_TURNS": "it used all of its turns",
    "ERROR_NO_COMPLETE_TASK_CALL": "it stopped without handing in a result",
    "ABORTED": "it was cancelled",
    "ERROR": "it failed",
}


@dataclass(frozen=True)
class InvokeParams:
    agent: AgentDefinition
    prompt: str


class InvokeAgentTool(Tool):
    name = INVOKE_AGENT
    display_name = "Invoke Subagent"
    description = "Hands a task or an investigation to a subagent, which returns its result when done."
    kind = "other"  # allowed by name (policy/defaults.py); in plan mode only the read-only agents
    parameters: dict[str, Any] = with_wait_for_previous(
        {
            "type": "object",
            "properties": {
                "agent_name": {"type": "string", "description": "Which subagent to run."},
                "prompt": {
                    "type": "string",
                    "description": "Everything the subagent needs, in full: the goal, the context and background, "
                    "the questions, and the form its answer should take. It sees nothing else of this conversation.",
                },
            },
            "required": ["agent_name", "prompt"],
        }
    )

    def __init__(self, agents: Sequence[AgentDefinition], parts: SubagentParts) -> None:
        self.agents = {a.name: a for a in agents}
        self.parts = parts

    def check(self, params: dict[str, Any]) -> str | None:
        if str(params["agent_name"]) not in self.agents:
            known = ", ".join(self.agents) or "(none)"
            return f"Subagent '{params['agent_name']}' not found. Available subagents: {known}"
        return None

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        return _Invoke(InvokeParams(self.agents[str(params["agent_name"])], str(params["prompt"])), self.parts)


class _Invoke(ToolInvocation[InvokeParams]):
    def __init__(self, params: InvokeParams, parts: SubagentParts) -> None:
        super().__init__(params)
        self.parts = parts

    def describe(self) -> str:
        return f"Delegating to agent '{self.params.agent.name}'"

    async def execute(self, output: OutputSink) -> ToolResult:
        agent = self.params.agent
        run = SubagentRun(agent, self.parts, output, self.call_id)
        reason, result = await run.run(self.params.prompt)
        if result is None:
            why = _LIMITS.get(reason, reason)
            message = f"Subagent '{agent.name}' did not finish: {why} (Termination Reason: {reason})."
            if run.last_text.strip():
                message += f"\nIts last message:\n{run.last_text.strip()}"
            return ToolResult(llm_content=message, display=message, error=message)
        text = f"Subagent '{agent.name}' finished.\nTermination Reason: {reason}\nResult:\n{result}"
        # A structured report (JSON) reads best to a person as a code block; a text answer as it is.
        shown = f"```json\n{result}\n```" if result.lstrip().startswith(("{", "[")) else result
        return ToolResult(llm_content=text, display=shown)
