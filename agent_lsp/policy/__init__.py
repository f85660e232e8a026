"""The policy engine: prioritised allow / deny / ask_user rules from TOML files, settings and built-in defaults."""

from agent_lsp.policy.engine import CheckResult, PolicyEngine, ToolFacts
from agent_lsp.policy.rules import PolicyDecision, PolicyRule

__all__ = ["CheckResult", "PolicyDecision", "PolicyEngine", "PolicyRule", "ToolFacts"]
