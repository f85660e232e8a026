"""The words every adapter, the command line and the editors share, defined once: modes, permission choices,
error meanings (models live in ``model/catalog.py``, slash commands in ``core/commands.py``).

Adapters read this module and tell clients what it says (ACP ``modes``/``configOptions``, LSP ``agent/*`` answers);
editors learn the lists from the server instead of copying them. It imports nothing heavy, so the command line
can use it before anything else loads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

# --- approval modes --------------------------------------------------------------------------------------

ApprovalMode = Literal["default", "auto_edit", "yolo", "plan"]


@dataclass(frozen=True)
class Mode:
    id: ApprovalMode
    name: str
    description: str


MODES: tuple[Mode, ...] = (
    Mode("default", "Default", "Ask before file edits, shell commands and other tools that change things."),
    Mode("auto_edit", "Auto edit", "Apply file edits without asking; still ask before shell commands."),
    Mode("yolo", "YOLO", "Run every tool without asking. Only in trusted folders."),
    Mode("plan", "Plan", "Read-only: explore and propose a plan; no edits and no commands."),
)
APPROVAL_MODES: tuple[ApprovalMode, ...] = tuple(m.id for m in MODES)
# The one order of the modes from the strictest to the most permissive: an "allow always" answer holds in its mode
# and every later one; settings that allow tools hold in all but plan; auto_edit and yolo approve without asking.
BY_PERMISSIVENESS: tuple[ApprovalMode, ...] = ("plan", "default", "auto_edit", "yolo")


def at_least_as_permissive(mode: ApprovalMode) -> tuple[ApprovalMode, ...]:
    """``mode`` and the modes more permissive than it."""
    return BY_PERMISSIVENESS[BY_PERMISSIVENESS.index(mode) :]


def auto_approves(mode: str) -> bool:
    """Whether ``mode`` runs some changing tools without asking (auto_edit: edits; yolo: everything)."""
    return mode in BY_PERMISSIVENESS[BY_PERMISSIVENESS.index("auto_edit") :]


def parse_mode(value: object, where: str = "approvalMode") -> ApprovalMode:
    """A client's string as an ApprovalMode; anything else raises ValueError naming ``where`` and the choices."""
    if isinstance(value, str) and value in APPROVAL_MODES:
        return value
    raise ValueError(f"{where} must be one of {', '.join(APPROVAL_MODES)} (got {value!r})")


def stricter_or_same(mode: ApprovalMode, than: ApprovalMode) -> bool:
    """Whether ``mode`` approves no more than ``than`` does (BY_PERMISSIVENESS)."""
    return BY_PERMISSIVENESS.index(mode) <= BY_PERMISSIVENESS.index(than)


def mode_refusal(mode: ApprovalMode, *, trusted: bool) -> str | None:
    """Why ``mode`` cannot be used in this folder, or None: an untrusted folder auto-approves nothing."""
    if not trusted and auto_approves(mode):
        return "this folder is not trusted, so tools cannot be auto-approved; trust it to use " + mode
    return None


# --- permission choices ----------------------------------------------------------------------------------

# What a Confirmer answers (core/ports.py re-exports it for the core): the core imports this module, never
# the other way round.
Outcome = Literal[
    "proceed_once",
    "proceed_always",  # this session; shell: these root commands; MCP: this tool
    "proceed_always_server",  # MCP: every tool of this server, this session
    "proceed_always_save",  # and save the rule in ~/.gemini/policies/auto-saved.toml
    "modify",
    "reject",  # no to this call: the model is told and answers in the same turn
    "cancel",  # stop: the call and the rest of the turn are cancelled
]

PermissionKind = Literal["allow_once", "allow_always", "reject_once", "reject_always"]  # ACP's option kinds


@dataclass(frozen=True)
class PermissionChoice:
    """One answer offered when a tool call needs the user's approval. ``option_id`` is what goes on the wire
    (Gemini CLI's ids, so its clients and ours read the same), ``outcome`` what the Confirmer returns."""

    option_id: str
    name: str
    kind: PermissionKind
    outcome: Outcome


class Question(Protocol):
    """What the choices depend on, read from ``events.ConfirmationDetails`` (which imports this module)."""

    @property
    def type(self) -> str: ...
    @property
    def root_commands(self) -> Sequence[str]: ...
    @property
    def server(self) -> str | None: ...
    @property
    def tool(self) -> str | None: ...
    @property
    def savable(self) -> bool: ...
    @property
    def always(self) -> bool: ...


def permission_choices(details: Question) -> list[PermissionChoice]:
    """The answers to offer for this question, in order; ``details.savable`` adds "allow in all future sessions"
    (Gemini CLI's ``security.enablePermanentToolApproval``), which writes a policy rule."""
    if details.type == "exec" and details.root_commands:
        always = "Always allow " + ", ".join(f"`{c}`" for c in details.root_commands) + " this session"
    elif details.type == "mcp" and details.tool:
        always = f"Always allow `{details.tool}` this session"
    elif details.type == "edit":
        always = "Allow all edits this session"
    else:
        always = "Allow for this session"
    choices = [PermissionChoice("proceed_once", "Allow once", "allow_once", "proceed_once")]
    if not details.always:  # settings forbid "allow always" (security.disableAlwaysAllow)
        return [*choices, PermissionChoice("reject", "Reject", "reject_once", "reject")]
    choices.append(PermissionChoice("proceed_always", always, "allow_always", "proceed_always"))
    if details.type == "mcp" and details.server:
        choices.append(
            PermissionChoice(
                "proceed_always_server",
                f"Always allow every tool of `{details.server}` this session",
                "allow_always",
                "proceed_always_server",
            )
        )
    if details.savable and not (details.type == "exec" and not details.root_commands):
        saved = {
            "exec": "Allow this command in all future sessions",
            "mcp": "Allow this tool in all future sessions",
            "edit": "Allow edits in all future sessions",
        }.get(details.type, "Allow in all future sessions")
        choices.append(PermissionChoice("proceed_always_and_save", saved, "allow_always", "proceed_always_save"))
    choices.append(PermissionChoice("reject", "Reject", "reject_once", "reject"))
    return choices


def outcome_for(option_id: object, offered: list[PermissionChoice]) -> Outcome:
    """The Confirmer outcome of a selected option; an option that was not offered is a rejection."""
    for choice in offered:
        if choice.option_id == option_id:
            return choice.outcome
    return "reject"


# --- error meanings --------------------------------------------------------------------------------------

# What went wrong, in words both adapters share; ``adapters/wire.py`` maps each to its JSON-RPC code.
ErrorMeaning = Literal[
    "parse_error",  # the bytes were not JSON
    "invalid_request",  # not a JSON-RPC request
    "method_not_found",
    "invalid_params",  # a field is missing or has the wrong type (the message names it)
    "internal",  # a bug: logged, answered, the server goes on
    "auth_required",  # no usable credentials: the message says what to set
    "not_found",  # a session (or other named thing) does not exist
    "busy",  # the session is already answering a prompt
    "cancelled",  # the request was cancelled by the client
]
