"""One permission question, as both front ends ask it: ACP's RequestPermissionRequest (``session/request_permission``
over ACP, ``agent/requestPermission`` over LSP), its options computed once from the shared vocabulary, and the
answer read back into a ConfirmationResult (an edited proposal sent with an approval becomes ``modify``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_lsp import events as ev
from agent_lsp.adapters.updates import edited_proposal, permission_tool_call
from agent_lsp.core.ports import ConfirmationResult, Outcome
from agent_lsp.vocabulary import PermissionChoice, outcome_for, permission_choices


def permission_options(choices: list[PermissionChoice]) -> list[dict[str, Any]]:
    """ACP PermissionOption entries for the vocabulary's permission choices (Gemini CLI's option ids)."""
    return [{"optionId": c.option_id, "name": c.name, "kind": c.kind} for c in choices]


@dataclass(frozen=True)
class PermissionQuestion:
    """A tool call the user is asked about, and the choices offered for it (fixed when the question is made)."""

    session_id: str
    call: ev.ToolCallInfo
    details: ev.ConfirmationDetails
    offered: list[PermissionChoice] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "offered", permission_choices(self.details))

    def request(self) -> dict[str, Any]:
        """RequestPermissionRequest params: the diff itself in ``toolCall.content``."""
        return {
            "sessionId": self.session_id,
            "toolCall": permission_tool_call(self.call, self.details),
            "options": permission_options(self.offered),
        }

    def outcome(self, answer: Any) -> Outcome:
        """``cancelled`` (or no answer) is the user's Stop (clients answer it when the prompt is cancelled);
        Reject, or an option we never offered, is a no the model hears."""
        outcome = answer.get("outcome") if isinstance(answer, Mapping) else None
        if not isinstance(outcome, Mapping) or outcome.get("outcome") != "selected":
            return "cancel"
        return outcome_for(outcome.get("optionId"), self.offered)

    def result(self, answer: Any) -> ConfirmationResult:
        """The answer as the Confirmer's result: an approval carrying the user's edited proposal is ``modify``."""
        outcome = self.outcome(answer)
        edited = edited_proposal(answer, self.details)
        if outcome not in ("reject", "cancel") and edited is not None:
            return ConfirmationResult("modify", edited)
        return ConfirmationResult(outcome)

    def outcome_of_title(self, title: Any) -> Outcome:
        """A plain client's ``window/showMessageRequest`` answer (the chosen action's title); no title is a Stop."""
        if not isinstance(title, str):
            return "cancel"
        chosen = next((c.option_id for c in self.offered if c.name == title), None)
        return outcome_for(chosen, self.offered)
