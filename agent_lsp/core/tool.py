"""The tool contract the core owns: a Tool builds an Invocation from validated params; the scheduler runs it.

A tool reports failure by raising :class:`agent_lsp.errors.ToolError` (or returning a ToolResult with
``error`` set); the scheduler turns either into a functionResponse the model reads. Cancellation is
asyncio task cancellation: ``execute`` must clean up in ``finally`` and let CancelledError through.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from agent_lsp.events import ConfirmationDetails, FileDiff, Location, PlanEntry, ToolKind
from agent_lsp.model.base import FunctionDeclaration, Part
from agent_lsp.vocabulary import ApprovalMode

SHELL_TOOL = "run_shell_command"
"""The built-in shell's name: the core runs custom commands' ``!{…}`` snippets through it and the policy treats
it by root command."""

OutputSink = Callable[[str], None]
"""Receives live output chunks (shell) while a tool runs."""


@dataclass
class ToolResult:
    """What a tool produced. ``llm_content`` goes to the model; ``display``/``diff`` go to the user."""

    llm_content: str | list[Part]
    display: str | None = None
    diff: FileDiff | None = None
    extra_diffs: tuple[FileDiff, ...] = ()  # a change to several files: diff is the first file's, these the rest
    error: str | None = None  # set: the call failed; llm_content should still say why
    error_type: str | None = None
    plan: tuple[PlanEntry, ...] | None = None  # set by write_todos: the editor shows it as a plan
    touched_paths: tuple[str, ...] = ()  # absolute paths read or written (JIT memory, checkpoints)
    title: str | None = None  # set by update_topic: the session's title follows it
    mode: ApprovalMode | None = None  # set by enter/exit_plan_mode: the session switches to this mode


P = TypeVar("P")


class ToolInvocation(ABC, Generic[P]):
    """One validated call of a tool, ready to describe, confirm and execute."""

    def __init__(self, params: P) -> None:
        self.params = params
        self.call_id = ""  # set by the scheduler before any other method runs (for editor-side resources)

    @abstractmethod
    def describe(self) -> str:
        """A one-line human description of what this call will do (the editor's title)."""

    def locations(self) -> list[Location]:
        return []

    async def confirmation(self) -> ConfirmationDetails | None:
        """Details to show if the policy asks the user; None for calls that never need asking.

        Called before execution; edit tools compute the proposed diff here (it may read files).
        """
        return None

    @property
    def modifiable(self) -> bool:
        """Whether the user may edit the proposal before it is applied (``apply_modification``). The scheduler
        reads it: an edit sent back for a call that cannot take one runs nothing."""
        return False

    def apply_modification(self, new_content: str) -> None:
        """The user edited the proposal (the "modify" outcome); what they wrote is what gets applied. Only called
        when ``modifiable``."""
        raise NotImplementedError(f"{type(self).__name__} cannot be modified")

    @abstractmethod
    async def execute(self, output: OutputSink) -> ToolResult: ...


class Tool(ABC):
    """A tool the model can call. Subclasses set the class attributes and implement ``build``."""

    name: str
    display_name: str
    description: str
    kind: ToolKind
    parameters: dict[str, Any]  # JSON schema of the params object
    # Output above the threshold is truncated for the model (full text saved to a file): shell, MCP.
    truncate_output: bool = False
    server: str | None = None  # the MCP server (or "discovered") a non-built-in tool came from
    trusted_server: bool = False  # an MCP server marked trust: its calls skip confirmation

    @property
    def read_only(self) -> bool:
        return self.kind in ("read", "search", "think", "fetch")

    def declaration(self) -> FunctionDeclaration:
        return FunctionDeclaration(self.name, self.description, self.parameters)

    def validate(self, params: dict[str, Any]) -> str | None:
        """A message saying what is wrong with ``params``, or None: the JSON schema's required keys and basic
        types first, then the tool's own ``check``."""
        return validate_against_schema(params, self.parameters) or self.check(params)

    def check(self, params: dict[str, Any]) -> str | None:
        """The tool's own checks, on params that already match the schema. Override; None means fine."""
        return None

    @abstractmethod
    def build(self, params: dict[str, Any]) -> ToolInvocation[Any]:
        """A ready invocation for params that passed ``validate``. May raise ToolError."""


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict,),
}


def validate_against_schema(params: Any, schema: dict[str, Any]) -> str | None:
    """A small, dependency-free check of the subset of JSON schema our tools use."""
    if not isinstance(params, dict):
        return "params must be an object"
    for key in schema.get("required", []):
        if key not in params or params[key] is None:
            return f"params must have required property '{key}'"
    props: dict[str, Any] = schema.get("properties", {})
    for key, value in params.items():
        spec = props.get(key)
        if spec is None or value is None:
            continue
        expected = spec.get("type")
        if isinstance(expected, str) and expected in _JSON_TYPES:
            ok = isinstance(value, _JSON_TYPES[expected]) and not (
                expected in ("integer", "number") and isinstance(value, bool)
            )
            if not ok:
                return f"params/{key} must be {expected}"
        if "enum" in spec and value not in spec["enum"]:
            return f"params/{key} must be one of {', '.join(map(str, spec['enum']))}"
        if expected == "integer" and "minimum" in spec and value < spec["minimum"]:
            return f"params/{key} must be >= {spec['minimum']}"
        if expected == "array" and isinstance(spec.get("items"), dict):
            for i, item in enumerate(value):
                item_type = spec["items"].get("type")
                if (
                    isinstance(item_type, str)
                    and item_type in _JSON_TYPES
                    and not isinstance(item, _JSON_TYPES[item_type])
                ):
                    return f"params/{key}/{i} must be {item_type}"
    return None


@dataclass(frozen=True)
class ToolCallRequestInfo:
    """A function call from the model, as the scheduler receives it."""

    call_id: str
    name: str
    args: dict[str, Any] = field(default_factory=dict)
