"""Asking the user about one tool call and applying the answer: session rules, saved rules, edited proposals."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeAlias

from agent_lsp import events as ev
from agent_lsp.core.ports import Confirmer, Hooks, ToolPolicy
from agent_lsp.core.tool import Tool, ToolInvocation


@dataclass(frozen=True)
class Approved:
    """The call may run (its invocation may now carry the user's edit)."""


@dataclass(frozen=True)
class Refusal:
    """The call does not run, and ends so: ``why`` is what the model reads."""

    why: str
    status: Literal["error", "cancelled"] = "cancelled"
    error_type: str | None = None
    declined: bool = False  # the user's Stop: the rest of the batch and the prompt end


# What became of the question.
Verdict: TypeAlias = Approved | Refusal
APPROVED = Approved()


def rejected_message(tool_name: str) -> str:
    """What the model reads when the user rejected a call (Gemini CLI's wording over ACP)."""
    return f'Tool "{tool_name}" was canceled by the user.'


class Approval:
    """The confirmation step of the scheduler. ``permanent_approval`` (``security.enablePermanentToolApproval``)
    lets the question offer "allow in all future sessions" where the policy can derive a rule to save."""

    def __init__(
        self,
        policy: ToolPolicy,
        confirmer: Confirmer,
        emit: Callable[[ev.AgentEvent], None],
        *,
        delivered: Callable[[], Awaitable[None]] | None = None,
        hooks: Hooks | None = None,
        on_save_rule: Callable[[list[str]], None] | None = None,
        permanent_approval: bool = False,
        always_allow: bool = True,
    ) -> None:
        self.policy = policy
        self.confirmer = confirmer
        self.emit = emit
        self.delivered = delivered
        self.hooks = hooks
        self.on_save_rule = on_save_rule
        self.permanent_approval = permanent_approval
        self.always_allow = always_allow  # False: security.disableAlwaysAllow (only "allow once" is offered)

    async def ask(
        self, info: ev.ToolCallInfo, tool: Tool, invocation: ToolInvocation[Any], details: ev.ConfirmationDetails
    ) -> Verdict:
        saved_rules = self.savable_rules(tool, details)
        if saved_rules:
            details = replace(details, savable=True)
        if not self.always_allow:
            details = replace(details, always=False)
        self.emit(ev.ToolCallStatusChange(info.call_id, "awaiting_approval"))
        self.emit(ev.ToolCallConfirmation(info, details))
        heard = self._notify_hooks(info, details)
        if self.delivered is not None:
            # The confirmer asks outside the event stream: everything emitted before the question (the model's
            # text, this tool call) must reach the editor first.
            await self.delivered()
        try:
            answer = await self.confirmer.confirm(info, details)
        except BaseException:
            if heard is not None:
                heard.cancel()  # the runner kills the hook's process group
            raise
        if heard is not None:
            await heard  # bounded by the hooks' timeouts; it ran while the user was deciding
        if answer.outcome == "reject":
            # As Gemini CLI does over ACP: the model reads that the user said no and answers in the same turn.
            return Refusal(rejected_message(info.name))
        if answer.outcome == "cancel":
            return Refusal("The user cancelled the request at this call.", declined=True)
        if self.always_allow and answer.outcome in ("proceed_always", "proceed_always_server", "proceed_always_save"):
            scope: Literal["tool", "server"] = "server" if answer.outcome == "proceed_always_server" else "tool"
            self.policy.remember(tool, details, scope)
            if answer.outcome == "proceed_always_save" and self.on_save_rule is not None and saved_rules:
                # Only what was offered is saved: a confirmer's "save" to a question that did not offer it is an
                # "allow always" for this session.
                self.on_save_rule(saved_rules)
        if answer.outcome == "modify" and answer.modified_content is not None:
            if not invocation.modifiable:
                # What the user approved is their edit, which this call cannot apply: run nothing rather than
                # the proposal they changed.
                self.emit(ev.Notice("warning", f"{info.name} cannot apply an edited proposal; nothing was run."))
                why = f'The user edited the proposal of "{info.name}", which cannot apply edits, so it was not run.'
                return Refusal(why, "error", "invalid_tool_params")
            invocation.apply_modification(answer.modified_content)
        return APPROVED

    def savable_rules(self, tool: Tool, details: ev.ConfirmationDetails) -> list[str]:
        """The rules "allow in all future sessions" would write, when it may be offered; else none."""
        if not self.permanent_approval or not self.always_allow or self.on_save_rule is None:
            return []
        return self.policy.rule_for(tool, details)

    def _notify_hooks(self, info: ev.ToolCallInfo, details: ev.ConfirmationDetails) -> asyncio.Task[Any] | None:
        """Notification hooks hear about the question while it is asked; they only observe it."""
        hooks = self.hooks
        if hooks is None or not hooks.has("Notification", "ToolPermission"):
            return None
        payload = {
            "notification_type": "ToolPermission",
            "message": f"Tool {info.name} requires permission: {details.title}",
            "details": {"tool_name": info.name, "title": details.title, "type": details.type, "args": info.args},
        }
        return asyncio.get_running_loop().create_task(hooks.fire("Notification", payload, "ToolPermission"))
