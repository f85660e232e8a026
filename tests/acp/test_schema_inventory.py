"""Every SessionUpdate variant, method and capability of the pinned ACP schema (stable and unstable), each marked
as used by agent-lsp or deliberately not, with the reason. When the schema is bumped, whatever it adds fails this
test by name until someone decides about it; whatever it drops fails too."""

from __future__ import annotations

import json
from typing import Any

from agent_lsp.adapters.acp.agent import METHODS
from agent_lsp.adapters.acp.handshake import initialize_result
from tests.acp_schema import schema_path

USED = "used"

# sessionUpdate → what sends it (or why nothing does).
UPDATES: dict[str, str] = {
    "user_message_chunk": USED,  # replay of a loaded session; a subagent's task in its child session
    "agent_message_chunk": USED,
    "agent_thought_chunk": USED,
    "tool_call": USED,
    "tool_call_update": USED,
    "plan": USED,
    "available_commands_update": USED,
    "current_mode_update": USED,
    "config_option_update": USED,
    "session_info_update": USED,
    "usage_update": USED,
    "notice": USED,  # for clients with session.notices
    "compaction_update": USED,  # for clients with session.compaction
    "compaction_summary_chunk": "not used: the summary comes whole from one model call, sent in compaction_update",
    "subagent_update": USED,  # unstable: for clients with subagents
    "plan_update": "not used (unstable): our plan is write_todos' full list, sent as the stable plan update",
    "plan_removed": "not used (unstable): a plan is replaced, never removed",
    "session_message": "not used (unstable): a subagent gets one task, no messages between sessions",
    "session_message_chunk": "not used (unstable): as session_message",
}

# (side, method) → used, or why not. "agent" methods are those we answer; "client" ones those we call.
METHODS_OF_SCHEMA: dict[tuple[str, str], str] = {
    ("agent", "initialize"): USED,
    ("agent", "authenticate"): USED,
    ("agent", "logout"): USED,
    ("agent", "session/new"): USED,
    ("agent", "session/load"): USED,
    ("agent", "session/resume"): USED,
    ("agent", "session/fork"): USED,  # unstable
    ("agent", "session/list"): USED,
    ("agent", "session/close"): USED,
    ("agent", "session/delete"): USED,
    ("agent", "session/prompt"): USED,
    ("agent", "session/cancel"): USED,  # a notification
    ("agent", "session/set_mode"): USED,
    ("agent", "session/set_config_option"): USED,
    ("agent", "session/archive"): "not used (unstable): sessions are listed or deleted, not archived",
    ("agent", "session/unarchive"): "not used (unstable): as session/archive",
    ("agent", "session/set_title"): "not used (unstable): titles come from the conversation (update_topic)",
    ("agent", "session/status"): "not used (unstable): a client sees a turn run through its prompt request",
    ("agent", "auth/status"): "not used (unstable): credentials are checked at session/new (auth_required)",
    ("agent", "providers/list"): "not used (unstable): providers are settings (docs/models.md), not ACP",
    ("agent", "providers/set"): "not used (unstable): as providers/list",
    ("agent", "providers/disable"): "not used (unstable): as providers/list",
    ("agent", "mcp/message"): "not used (unstable): MCP servers are run by the agent itself (mcpCapabilities.acp)",
    ("client", "session/update"): USED,
    ("client", "session/request_permission"): USED,
    ("client", "fs/read_text_file"): USED,
    ("client", "fs/write_text_file"): USED,
    ("client", "terminal/create"): USED,
    ("client", "terminal/output"): USED,
    ("client", "terminal/wait_for_exit"): USED,
    ("client", "terminal/kill"): USED,
    ("client", "terminal/release"): USED,
    ("client", "elicitation/create"): USED,  # MCP servers' forms
    ("client", "elicitation/complete"): "not used: only form elicitation is offered, URL mode never completes",
    ("client", "auth/status_update"): "not used (unstable): as auth/status",
    ("client", "mcp/message"): "not used (unstable): as the agent side's mcp/message",
    ("protocol", "$/cancel_request"): USED,
    ("proxy", "proxy/initialize"): "not used (unstable): agent-lsp is an agent, not a proxy",
    ("proxy", "proxy/successor"): "not used (unstable): as proxy/initialize",
}

# "Type.property" of the capability objects → used (we read or advertise it), or why not.
CAPABILITIES: dict[str, str] = {
    "AgentCapabilities.loadSession": USED,
    "AgentCapabilities.promptCapabilities": USED,
    "AgentCapabilities.mcpCapabilities": USED,
    "AgentCapabilities.sessionCapabilities": USED,
    "AgentCapabilities.auth": USED,
    "AgentCapabilities.providers": "not advertised (unstable): see providers/list",
    "AgentCapabilities._meta": USED,  # our extension methods
    "SessionCapabilities.list": USED,
    "SessionCapabilities.resume": USED,
    "SessionCapabilities.close": USED,
    "SessionCapabilities.delete": USED,
    "SessionCapabilities.additionalDirectories": USED,
    "SessionCapabilities.fork": USED,
    "SessionCapabilities.systemPrompt": USED,  # append mode only (no mode.override)
    "SessionCapabilities.archive": "not advertised (unstable): see session/archive",
    "SessionCapabilities.status": "not advertised (unstable): see session/status",
    "SessionCapabilities.title": "not advertised (unstable): see session/set_title",
    "SessionCapabilities._meta": "not used",
    "PromptCapabilities.image": USED,
    "PromptCapabilities.audio": USED,
    "PromptCapabilities.embeddedContext": USED,
    "PromptCapabilities._meta": "not used",
    "McpCapabilities.http": USED,
    "McpCapabilities.sse": USED,
    "McpCapabilities.acp": "not advertised (unstable): MCP over ACP is not offered",
    "McpCapabilities._meta": "not used",
    "AgentAuthCapabilities.logout": USED,
    "AgentAuthCapabilities.status": "not advertised (unstable): see auth/status",
    "AgentAuthCapabilities._meta": "not used",
    "ClientCapabilities.fs": USED,
    "ClientCapabilities.terminal": USED,
    "ClientCapabilities.session": USED,
    "ClientCapabilities.auth": USED,  # auth.terminal
    "ClientCapabilities.elicitation": USED,
    "ClientCapabilities.subagents": USED,  # unstable: child sessions
    "ClientCapabilities.plan": "not read (unstable): plan_update is not sent",
    "ClientCapabilities._meta": USED,  # the older terminal-auth opt-in
    "ClientSessionCapabilities.notices": USED,
    "ClientSessionCapabilities.compaction": USED,
    "ClientSessionCapabilities.configOptions": "not read: our config options are plain selects every client draws",
    "ClientSessionCapabilities._meta": "not used",
    "FileSystemCapabilities.readTextFile": USED,
    "FileSystemCapabilities.writeTextFile": USED,
    "FileSystemCapabilities._meta": "not used",
    "AuthCapabilities.terminal": USED,
    "AuthCapabilities._meta": "not used",
    "ElicitationCapabilities.form": USED,
    "ElicitationCapabilities.url": "not read: URL elicitation is said as a notice with the address",
    "ElicitationCapabilities._meta": "not used",
}


def _defs() -> dict[str, Any]:
    defs: dict[str, Any] = json.loads(schema_path().with_name("schema.unstable.json").read_text(encoding="utf-8"))[
        "$defs"
    ]
    stable = json.loads(schema_path().read_text(encoding="utf-8"))["$defs"]
    assert set(stable) <= set(defs), "the unstable schema is a superset of the stable one"
    return defs


def test_every_session_update_variant_is_decided() -> None:
    variants = {
        v["properties"]["sessionUpdate"]["const"]
        for v in _defs()["SessionUpdate"]["oneOf" if "oneOf" in _defs()["SessionUpdate"] else "anyOf"]
        if "sessionUpdate" in v.get("properties", {})
    }
    assert variants == set(UPDATES), f"new: {variants - set(UPDATES)}; gone: {set(UPDATES) - variants}"


def test_every_method_is_decided_and_the_agent_answers_the_ones_marked_used() -> None:
    methods = {(d["x-side"], d["x-method"]) for d in _defs().values() if isinstance(d, dict) and "x-method" in d}
    assert methods == set(METHODS_OF_SCHEMA), (
        f"new: {methods - set(METHODS_OF_SCHEMA)}; gone: {set(METHODS_OF_SCHEMA) - methods}"
    )
    answered = {m for (side, m), use in METHODS_OF_SCHEMA.items() if side == "agent" and use == USED}
    assert answered - {"session/cancel"} == {m for m in METHODS if not m.startswith("_")}
    assert {"_session/steering", "_agent-lsp/rewind"} <= set(METHODS)  # our extensions (docs/protocol-acp.md)


def test_every_capability_is_decided_and_what_we_advertise_is_marked_used() -> None:
    defs = _defs()
    names = {
        f"{holder}.{prop}"
        for holder in {k.split(".")[0] for k in CAPABILITIES}
        for prop in defs[holder].get("properties", {})
    }
    assert names == set(CAPABILITIES), f"new: {names - set(CAPABILITIES)}; gone: {set(CAPABILITIES) - names}"
    advertised = initialize_result(auth_required=True)["agentCapabilities"]
    for key in advertised:
        assert CAPABILITIES[f"AgentCapabilities.{key}"] == USED, key
    for key in advertised["sessionCapabilities"]:
        assert CAPABILITIES[f"SessionCapabilities.{key}"] == USED, key
