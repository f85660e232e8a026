"""What the command line and the adapters hand the runtime: process-wide options and one session's setup."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_lsp.vocabulary import ApprovalMode

if TYPE_CHECKING:
    from agent_lsp import events as ev
    from agent_lsp.core.code_intel import CodeIntel
    from agent_lsp.core.ports import Confirmer
    from agent_lsp.core.retry import RetryPolicy
    from agent_lsp.mcp.elicitation import Elicitor
    from agent_lsp.model.base import Content
    from agent_lsp.tools.base import Tool
    from agent_lsp.tools.context import ToolContext
    from agent_lsp.workspace.filesystem import FileSystem

REPLAY_DELAY_ENV = "AGENT_LSP_REPLAY_DELAY"  # seconds between replayed chunks (demos and UI tests), both adapters


def replay_delay(env: Mapping[str, str]) -> float:
    """The replay pacing the environment asks for (0 when unset or not a number)."""
    try:
        return max(0.0, float(env.get(REPLAY_DELAY_ENV, "") or 0.0))
    except ValueError:
        return 0.0


@dataclass
class RuntimeOptions:
    """What the command line (or the adapter) decided before any session exists."""

    fake_responses: Path | None = None
    model: str | None = None
    approval_mode: ApprovalMode | None = None
    checkpointing: bool | None = None  # None: settings decide (adapters pass True as their default)
    chunk_delay: float = 0.0  # replay pacing, for demos
    # Gemini CLI's -e/--extensions: only these extensions (["none"]: none); None: the enablement rules decide.
    extensions: Sequence[str] | None = None
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)
    interactive: bool = True  # False when nobody can answer a confirmation (headless): "ask" becomes deny
    policy_paths: Sequence[Path] = ()  # --policy: replaces the user tier's ~/.gemini/policies
    allowed_tools: Sequence[str] = ()  # --allowed-tools: added to tools.allowed
    allowed_mcp_server_names: Sequence[str] | None = None  # --allowed-mcp-server-names: replaces mcp.allowed
    include_directories: Sequence[Path] = ()  # --include-directories: more workspace roots
    # Build the model client on a thread while the user types (editors). Headless sends its prompt at once, so
    # there is nothing to win, and a warm-up thread still running when the process exits only races shutdown.
    warm_model: bool = True
    # How model requests are retried (backoff, fallback); None: Gemini CLI's. ``general.maxAttempts`` in settings
    # sets the attempts either way.
    retry: RetryPolicy | None = None


@dataclass
class SessionSetup:
    """Per-session inputs from the adapter."""

    cwd: Path
    confirmer: Confirmer
    fs: FileSystem | None = None  # the editor's buffers; None: the disk
    extra_roots: Sequence[Path] = ()
    approval_mode: ApprovalMode | None = None
    model: str | None = None
    client_mcp_servers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # from the editor: trusted
    overrides: Mapping[str, Any] | None = None  # editor settings, nested like settings.json
    editor_trust: bool | None = None
    session_id: str | None = None
    checkpointing: bool | None = None  # the editor's setting for this session; None: RuntimeOptions decide
    history: Sequence[Content] = ()
    title: str | None = None  # a loaded session's title
    events: Sequence[ev.AgentEvent] = ()  # a loaded session's recorded events (its messages, for rewind)
    record: bool = True
    # What the client adds to the system prompt (ACP's systemPrompt, append mode): after our own instructions.
    client_instructions: str = ""
    # What the adapter contributes, given at construction (nothing is patched into a session afterwards):
    notice_sink: Callable[[ev.Notice], None] | None = None  # notices outside a prompt (else kept in ``notices``)
    # Told when the session's commands change on their own (an MCP server's prompts arrive or change), so the
    # editor's menu can be sent again; the handle's ``command_specs`` has the new list.
    commands_changed: Callable[[], None] | None = None
    # Opens an MCP server's sign-in page for the user (the editor's window/showDocument; None: the user's browser,
    # where there is one); the address is also said as a notice, so the user can always open it by hand. It runs
    # while the sign-in waits for the browser and is cancelled when the sign-in ends (progress may last till then).
    open_url: Callable[[str], Awaitable[None]] | None = None
    # Shows an MCP server's form (elicitation) to the user; None: the capability is not declared.
    elicitor: Elicitor | None = None
    # Built-in tools the editor provides instead, by name (ACP's terminal runs run_shell_command in the editor);
    # each factory gets the session's ToolContext.
    replace_tools: Mapping[str, Callable[[ToolContext], Tool]] = field(default_factory=dict)
    # The editor's code intelligence (its language features over LSP, an ACP client's language servers); None: the
    # runtime's own language servers serve the session, where any are configured or found.
    code_intel: CodeIntel | None = None
