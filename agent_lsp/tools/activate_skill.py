"""activate_skill: loads one agent skill's instructions (its SKILL.md body) and opens its folder to the tools."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agent_lsp.events import ConfirmationDetails
from agent_lsp.model.base import FunctionDeclaration
from agent_lsp.tools.base import OutputSink, Tool, ToolInvocation, ToolResult

ACTIVATE_SKILL = "activate_skill"
_DESCRIPTION = (
    "Activates a specialized agent skill by name{names}. Returns the skill's instructions wrapped in "
    "`<activated_skill>` tags. These provide specialized guidance for the current task. Use this when you "
    "identify a task that matches a skill's description. ONLY use names exactly as they appear in the "
    "`<available_skills>` section."
)


class SkillInfo(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def body(self) -> str: ...
    @property
    def folder(self) -> Path: ...


class Skills(Protocol):
    """The session's skill set (config.skills.SkillSet): what is enabled now, and activation bookkeeping."""

    active: set[str]

    def enabled(self) -> list[Any]: ...

    def get(self, name: str) -> Any: ...


@dataclass(frozen=True)
class _Params:
    name: str


class ActivateSkillTool(Tool):
    name = ACTIVATE_SKILL
    display_name = "Activate Skill"
    description = _DESCRIPTION.format(names="")
    kind = "other"  # Gemini CLI asks before a skill's instructions and folder come into the conversation

    def __init__(self, skills: Skills, open_folder: Any, listing: Any) -> None:
        self.skills = skills
        self.open_folder = open_folder  # Callable[[Path], None]: lets tools read the skill's resources
        self.listing = listing  # Callable[[Path], str]: the folder's tree, shown to the user and the model

    @property
    def parameters(self) -> dict[str, Any]:  # type: ignore[override]
        names = [s.name for s in self.skills.enabled()]
        prop: dict[str, Any] = {"type": "string", "description": "The name of the skill to activate."}
        if names:
            prop["enum"] = names
        return {"type": "object", "properties": {"name": prop}, "required": ["name"]}

    def declaration(self) -> FunctionDeclaration:
        names = [s.name for s in self.skills.enabled()]
        shown = f" (Available: {', '.join(repr(n) for n in names)})" if names else ""
        return FunctionDeclaration(self.name, _DESCRIPTION.format(names=shown), self.parameters)

    def check(self, params: dict[str, Any]) -> str | None:
        if self.skills.get(str(params["name"])) is None:
            names = ", ".join(s.name for s in self.skills.enabled()) or "(none)"
            return f'Skill "{params["name"]}" not found. Available skills are: {names}'
        return None

    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        return _Activate(_Params(str(params["name"])), self)


class _Activate(ToolInvocation[_Params]):
    def __init__(self, params: _Params, tool: ActivateSkillTool) -> None:
        super().__init__(params)
        self.tool = tool
        self.skill: SkillInfo = tool.skills.get(params.name)

    def describe(self) -> str:
        return f'"{self.skill.name}": {self.skill.description}'

    async def confirmation(self) -> ConfirmationDetails:
        return ConfirmationDetails(
            type="info",
            title=f"Activate Skill: {self.skill.name}",
            prompt=(
                f"You are about to enable the specialized agent skill **{self.skill.name}**.\n\n"
                f"{self.skill.description}\n\n{self.tool.listing(self.skill.folder)}"
            ),
        )

    async def execute(self, output: OutputSink) -> ToolResult:
        skill = self.skill
        self.tool.skills.active.add(skill.name)
        self.tool.open_folder(skill.folder)
        tree = self.tool.listing(skill.folder)
        content = (
            f'<activated_skill name="{skill.name}">\n  <instructions>\n    {skill.body}\n  </instructions>\n\n'
            f"  <available_resources>\n    {tree}\n  </available_resources>\n</activated_skill>"
        )
        display = f"Skill **{skill.name}** activated. Resources loaded from `{skill.folder}`:\n\n{tree}"
        return ToolResult(llm_content=content, display=display)
