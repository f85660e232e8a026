"""The auto-approve switches an editor shows (read, edit, shell, MCP, web; off, this session or this workspace):
their state as plain JSON and one change, applied to the session's policy (docs/protocol.md#agentautoapprove)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from agent_lsp.policy.auto_approve import AUTO_KINDS, SCOPES, AutoKind, parse_kinds
from agent_lsp.tools.policy import Policy, auto_approve_refusal

if TYPE_CHECKING:
    from agent_lsp.runtime import SessionHandle

CHOICES = ("off", *SCOPES)


class BadAutoApprove(ValueError):
    """The params name an unknown kind or scope."""


def auto_approve_state(handle: SessionHandle) -> dict[str, Any]:
    """Each kind's scope (``off``, ``session``, ``workspace``: the broadest that holds), and whether the switches
    can be used here at all (not in an untrusted folder, with the reason)."""
    policy = _policy(handle)
    on = policy.auto_approved()
    reason = auto_approve_refusal(trusted=policy.trusted)
    kinds = [
        {
            "kind": kind,
            "scope": "workspace"
            if kind in on.get("workspace", ())
            else "session"
            if kind in on.get("session", ())
            else "off",
        }
        for kind in AUTO_KINDS
    ]
    return {"available": reason is None, "reason": reason, "kinds": kinds, "planMode": policy.mode == "plan"}


def change_params(params: Mapping[str, Any]) -> tuple[AutoKind, str] | None:
    """(kind, scope) to change, or None when the params only ask for the state."""
    kind, scope = params.get("kind"), params.get("scope")
    if kind is None and scope is None:
        return None
    try:
        (checked,) = parse_kinds([kind])
    except ValueError as exc:
        raise BadAutoApprove(f"kind: {exc}") from exc
    if scope not in CHOICES:
        raise BadAutoApprove(f"scope must be one of {', '.join(CHOICES)}")
    return checked, str(scope)


async def change(handle: SessionHandle, kind: AutoKind, scope: str, others: Iterable[SessionHandle]) -> str | None:
    """Put ``kind`` in ``scope`` (and out of the other one); a workspace change is saved for the project and
    applied to ``others`` open on the same folder. The reason when refused (an untrusted folder)."""
    from agent_lsp.config.auto_approve import save_workspace_kinds

    policy = _policy(handle)
    refused = auto_approve_refusal(trusted=policy.trusted)
    if refused is not None:
        return refused
    on = policy.auto_approved()
    session = {k for k in on.get("session", ()) if k != kind} | ({kind} if scope == "session" else set())
    workspace = {k for k in on.get("workspace", ()) if k != kind} | ({kind} if scope == "workspace" else set())
    policy.set_auto_approve("session", frozenset(session))
    if workspace != set(on.get("workspace", ())):
        root = handle.workspace.primary
        await asyncio.to_thread(save_workspace_kinds, root, sorted(workspace))
        for other in (handle, *others):
            if other.workspace.primary == root and _policy(other).trusted:
                _policy(other).set_auto_approve("workspace", frozenset(workspace))
    return None


def _policy(handle: SessionHandle) -> Policy:
    """The session's concrete policy (the core sees it as a ToolPolicy; the runtime always builds this one)."""
    policy = handle.session.policy
    if not isinstance(policy, Policy):
        raise TypeError(f"a session's policy is a tools.policy.Policy, not {type(policy).__name__}")
    return policy
