"""Built-in rules (the default tier): what each approval mode lets a tool of each kind do without asking."""

from __future__ import annotations

from agent_lsp.policy.rules import DEFAULT_TIER, PolicyRule, tier_priority

READ_KINDS = ("read", "search", "think")
WRITE_KINDS = ("edit", "delete", "move", "execute", "fetch")
EDIT_KINDS = ("edit", "delete", "move")
PLAN_DENY = (
    "You are in Plan Mode with access to read-only tools: files cannot be changed and commands cannot run "
    "until the plan is approved."
)


def _p(priority: int) -> float:
    return tier_priority(DEFAULT_TIER, priority)


def default_rules() -> list[PolicyRule]:
    """The same bands as Gemini CLI's built-in policies, keyed by tool kind so MCP and built-ins share them.

    Tools of kind "other" (MCP, discovered, save_memory) match nothing here: they get the engine's default,
    ask when someone can answer, deny when nobody can.
    """
    src = "Default"
    return [
        PolicyRule("*", "allow", _p(998), modes=("yolo",), source=src, allow_redirection=True),
        PolicyRule("*", "allow", _p(50), kinds=READ_KINDS, source=src),
        PolicyRule("*", "ask_user", _p(50), kinds=("fetch",), modes=("plan",), interactive=True, source=src),
        PolicyRule("*", "deny", _p(40), modes=("plan",), deny_message=PLAN_DENY, source=src),
        PolicyRule("*", "allow", _p(15), kinds=(*EDIT_KINDS, "fetch"), modes=("auto_edit",), source=src),
        PolicyRule("*", "ask_user", _p(10), kinds=WRITE_KINDS, interactive=True, source=src),
        PolicyRule("*", "deny", _p(10), kinds=WRITE_KINDS, interactive=False, source=src),
    ]
