"""update_topic: the model names the phase of the work it is in; the session's title follows the topic."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_lsp.tools.base import OutputSink, Tool, ToolInvocation, ToolResult
from agent_lsp.tools.wait_param import with_wait_for_previous

UPDATE_TOPIC = "update_topic"
_DESCRIPTION = (
    "Names the phase of the work you are in. Give `title` and `summary` only when a new phase (a chapter of the "
    "task) begins or your strategy changes; otherwise give just `strategic_intent`, one sentence on what you do next."
)


@dataclass(frozen=True)
class TopicParams:
    title: str | None
    summary: str | None
    intent: str | None


class TopicState:
    """The session's current topic and intent (one per session; the tool reads and updates it)."""

    def __init__(self) -> None:
        self.title: str | None = None
        self.intent: str | None = None


def _one_line(value: Any) -> str | None:
    text = " ".join(str(value).split()) if value is not None else ""
    return text or None


class UpdateTopicTool(Tool):
    name = UPDATE_TOPIC
    display_name = "Update Topic Context"
    description = _DESCRIPTION
    kind = "think"
    parameters: dict[str, Any] = with_wait_for_previous(
        {
            "type": "object",
            "properties": {
                "title": {"type": "string", "description": "A short title for the new phase."},
                "summary": {
                    "type": "string",
                    "description": "(OPTIONAL) What the last phase achieved and what the new one sets out to do, "
                    "in a few sentences; give it whenever the phase changes.",
                },
                "strategic_intent": {"type": "string", "description": "One sentence: what you are doing next."},
            },
            "required": ["strategic_intent"],
        }
    )

    def __init__(self, state: TopicState | None = None) -> None:
        self.state = state or TopicState()

    def check(self, params: dict[str, Any]) -> str | None:
        if _one_line(params.get("title")) is None and _one_line(params.get("strategic_intent")) is None:
            return "Give a title or a strategic_intent."
        return None

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        p = TopicParams(
            _one_line(params.get("title")), params.get("summary") or None, _one_line(params.get("strategic_intent"))
        )
        return _UpdateTopic(p, self.state)


class _UpdateTopic(ToolInvocation[TopicParams]):
    def __init__(self, params: TopicParams, state: TopicState) -> None:
        super().__init__(params)
        self.state = state

    def describe(self) -> str:
        if self.params.title:
            return f'Update topic to: "{self.params.title}"'
        return f'Update tactical intent: "{self.params.intent or "..."}"'

    async def execute(self, output: OutputSink) -> ToolResult:
        p, state = self.params, self.state
        new_topic = p.title is not None and p.title != state.title
        if p.title:
            state.title = p.title
        if p.intent:
            state.intent = p.intent
        intent = p.intent or state.intent or "..."
        if not new_topic:
            return ToolResult(llm_content=f"Strategic Intent: {intent}", display=f"**Intent:** {intent}")
        text = f'Current topic: "{state.title}"\nTopic summary: {p.summary or "..."}'
        display = f"**Topic: {state.title}**\n\n{p.summary or '...'}"
        if p.intent:
            text += f"\n\nStrategic Intent: {p.intent}"
            display += f"\n\n**Intent:** {p.intent}"
        # A new topic renames the session (ACP session_info_update, the panels' title).
        return ToolResult(llm_content=text, display=display, title=state.title)
