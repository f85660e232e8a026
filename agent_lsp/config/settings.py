"""Typed settings: the keys of Gemini CLI's settings.json (nested "v2" shape) that agent-lsp reads, with defaults."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from agent_lsp.vocabulary import ApprovalMode  # the one definition of the modes

TelemetryTarget = Literal["local", "otlp", "gcp"]


class _Section(BaseModel):
    """Common config: camelCase on disk, snake_case in Python; unknown keys are dropped quietly.

    Strict so that ``"maxSessionTurns": "ten"`` or ``"enabled": "yes"`` is reported instead of guessed at.

    Validators are built on first use (``defer_build``) and nested defaults are made with ``model_construct``
    (defaults need no validation), so importing this module and taking the defaults (no settings file: the
    loader then validates nothing) costs ~10 ms instead of ~32 ms of pydantic schema building on the way to
    a ready session; the first settings file to validate pays the rest.

    Empty-list defaults are written ``default=[]`` (pydantic copies a mutable default for each instance, so no
    two settings share a list): with ``default_factory=list`` pydantic inspected ``list``'s signature on every
    construction (~0.15 ms a field, ~1.2 ms for each ``Settings`` made, several per session).
    """

    model_config = ConfigDict(
        extra="ignore",
        alias_generator=to_camel,
        populate_by_name=True,
        frozen=True,
        strict=True,
        defer_build=True,
    )


class CheckpointingSettings(_Section):
    enabled: bool = Field(
        default=False, description="Snapshot the workspace before a tool modifies files, so /restore works."
    )


class GeneralSettings(_Section):
    default_approval_mode: ApprovalMode = Field(
        default="default",
        description=(
            "Approval mode a session starts in: 'default' asks before edits and shell commands, 'auto_edit' "
            "approves file edits, 'plan' is read-only, 'yolo' approves everything. 'yolo' is refused in "
            "workspace settings files and when security.disableYoloMode is true."
        ),
    )
    checkpointing: CheckpointingSettings = Field(default_factory=CheckpointingSettings.model_construct)
    max_attempts: int = Field(
        default=10, ge=1, le=10, description="Attempts per model request (first try plus retries)."
    )


class ChatCompressionSettings(_Section):
    context_percentage_threshold: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="Compress the chat history once it uses this fraction of the model's context window.",
    )


class ModelLimitSettings(_Section):
    """What an endpoint may not say about one of its models."""

    context_window: int | None = Field(
        default=None, gt=0, description="Tokens the model can read; compression and overflow checks use it."
    )
    max_output_tokens: int | None = Field(
        default=None, gt=0, description="Upper bound on tokens per answer, sent as max_tokens."
    )
    inputs: list[Literal["image", "audio", "pdf"]] | None = Field(
        default=None,
        description="What the model takes besides text; beats what the provider or the built-in table says.",
    )


class ModelPriceSettings(_Section):
    """What one model costs, for the usage line's estimate (agent-lsp only)."""

    input_per_million: float = Field(ge=0, description="US dollars per million prompt tokens.")
    output_per_million: float = Field(ge=0, description="US dollars per million output tokens (thoughts included).")


class ModelSettings(_Section):
    name: str = Field(
        default="auto",
        min_length=1,
        description=(
            "Model for the main conversation: an id or an alias (auto, pro, flash, flash-lite); auto is Gemini CLI's "
            "default. With provider 'openai', a name the endpoint offers."
        ),
    )
    provider: Literal["gemini", "openai"] | None = Field(
        default=None,
        description=(
            "agent-lsp only: 'gemini' or 'openai' (any OpenAI-compatible endpoint). Unset: 'openai' when "
            "OPENAI_BASE_URL or OPENAI_MODEL is set, else 'gemini'. Decides when both have credentials."
        ),
    )
    base_url: str | None = Field(
        default=None,
        min_length=1,
        description=(
            "agent-lsp only: the OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (beats OPENAI_BASE_URL)."
        ),
    )
    api_key_env: str | None = Field(
        default="OPENAI_API_KEY",
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="agent-lsp only: the NAME of the variable holding the endpoint's key.",
    )
    context_window: int | None = Field(
        default=None, gt=0, description="agent-lsp only: context window of OpenAI-compatible models not in 'models'."
    )
    max_output_tokens: int | None = Field(
        default=None, gt=0, description="agent-lsp only: max_tokens for OpenAI-compatible models not in 'models'."
    )
    models: dict[str, ModelLimitSettings] = Field(
        default_factory=dict, description="agent-lsp only: contextWindow / maxOutputTokens per model name."
    )
    prices: dict[str, ModelPriceSettings] = Field(
        default_factory=dict,
        description=(
            "agent-lsp only: inputPerMillion / outputPerMillion (US dollars) per model name, for the cost estimate; "
            "beats the built-in table of Gemini prices."
        ),
    )
    max_session_turns: int = Field(default=-1, ge=-1, description="Maximum turns per session; -1 means unlimited.")
    chat_compression: ChatCompressionSettings = Field(default_factory=ChatCompressionSettings.model_construct)
    compression_threshold: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description=(
            "Newer Gemini CLI spelling of chatCompression.contextPercentageThreshold. The loader copies it there "
            "when a file sets only this one; read chat_compression, not this."
        ),
    )
    skip_next_speaker_check: bool = Field(
        default=True, description="Skip the extra model call that asks who speaks next."
    )
    disable_loop_detection: bool = Field(
        default=False, description="Turn off detection of repetitive tool calls/output."
    )

    @property
    def loop_detection_enabled(self) -> bool:
        return not self.disable_loop_detection


class FileFilteringSettings(_Section):
    respect_git_ignore: bool = Field(default=True, description="File tools skip paths matched by .gitignore.")
    respect_gemini_ignore: bool = Field(default=True, description="File tools skip paths matched by .geminiignore.")


class ContextSettings(_Section):
    file_name: str | list[str] = Field(
        default="GEMINI.md", description="Name (or names) of the memory files loaded into the system instruction."
    )
    include_directories: list[str] = Field(
        default=[], description="Extra folders added to the workspace (absolute or ~-relative)."
    )
    file_filtering: FileFilteringSettings = Field(default_factory=FileFilteringSettings.model_construct)
    memory_boundary_markers: list[str] = Field(
        default_factory=lambda: [".git"],
        description="Names whose presence marks a project root; memory discovery goes no higher.",
    )

    @field_validator("file_name")
    @classmethod
    def _names_not_blank(cls, value: str | list[str]) -> str | list[str]:
        names = [value] if isinstance(value, str) else value
        if not names or any(not n.strip() for n in names):
            raise ValueError("must be a non-empty file name or a non-empty list of them")
        return value

    @property
    def file_names(self) -> tuple[str, ...]:
        return (self.file_name,) if isinstance(self.file_name, str) else tuple(self.file_name)


class ShellSettings(_Section):
    inactivity_timeout: float = Field(
        default=300, gt=0, description="Seconds a shell command may run without printing before it is stopped."
    )


class WebFetchSettings(_Section):
    allow_private_addresses: bool = Field(
        default=False,
        description=(
            "agent-lsp only: let web_fetch reach loopback, link-local and private-network addresses. Off so a "
            "prompt cannot make the agent probe the local network."
        ),
    )


class ToolsSettings(_Section):
    core: list[str] | None = Field(
        default=None, description="Allowlist of built-in tools (e.g. 'run_shell_command(git)'); unset means all."
    )
    allowed: list[str] = Field(default=[], description="Tool calls that run without asking for approval.")
    exclude: list[str] = Field(default=[], description="Tools never offered to the model.")
    discovery_command: str | None = Field(
        default=None, description="Command printing FunctionDeclaration JSON for project-specific tools."
    )
    call_command: str | None = Field(
        default=None, description="Command that runs a discovered tool (name as first argument)."
    )
    truncate_tool_output_threshold: int = Field(
        default=40000,
        description="Tool output longer than this many characters is truncated; <= 0 disables truncation.",
    )
    auto_accept: bool = Field(
        default=False, description="Approve read-only tool calls without asking (legacy v1 autoAccept)."
    )
    use_ripgrep: bool = Field(default=True, description="search_file_content uses ripgrep when available.")
    shell: ShellSettings = Field(default_factory=ShellSettings.model_construct)
    web_fetch: WebFetchSettings = Field(default_factory=WebFetchSettings.model_construct)


class McpSettings(_Section):
    allowed: list[str] | None = Field(default=None, description="Only these MCP server names connect; unset means all.")
    excluded: list[str] = Field(default=[], description="These MCP server names never connect.")


class McpServerSettings(_Section):
    """One ``mcpServers`` entry. Unknown keys are kept (extra="allow") for McpServerSpec.from_settings."""

    model_config = ConfigDict(extra="allow")

    command: str | None = Field(default=None, description="Executable for the stdio transport.")
    args: list[str] = Field(default=[], description="Arguments for command.")
    env: dict[str, str] = Field(default_factory=dict, description="Extra environment for the server process.")
    cwd: str | None = Field(default=None, description="Working directory for the server process.")
    url: str | None = Field(default=None, description="SSE (or, with type 'http', streamable HTTP) endpoint.")
    http_url: str | None = Field(default=None, description="Streamable HTTP endpoint.")
    headers: dict[str, str] = Field(default_factory=dict, description="HTTP headers sent to the server.")
    type: Literal["stdio", "sse", "http"] | None = Field(default=None, description="Transport, when not implied.")
    timeout: int | None = Field(default=None, gt=0, description="Request timeout in milliseconds.")
    trust: bool = Field(default=False, description="Trusted servers' tools run without confirmation.")
    include_tools: list[str] | None = Field(default=None, description="Only these tools of the server are offered.")
    exclude_tools: list[str] = Field(default=[], description="These tools of the server are not offered.")
    description: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The entry as settings.json spells it (camelCase, unset keys left out), for McpServerSpec.from_settings."""
        return self.model_dump(by_alias=True, exclude_none=True)


class FolderTrustSettings(_Section):
    enabled: bool = Field(
        default=True,
        description=(
            "Untrusted folders get no workspace settings, .env or GEMINI.md. Read from user and system settings "
            "only. agent-lsp defaults to on (Gemini CLI's docs call it off by default)."
        ),
    )


class RedactionSettings(_Section):
    enabled: bool = Field(
        default=False,
        description=(
            "Redact every secret-looking variable (names with KEY, TOKEN, SECRET…, key-shaped values) from shell "
            "commands, background commands and hooks, as Gemini CLI does; MCP servers always get this. The agent's "
            "own credentials (GEMINI_API_KEY, GOOGLE_API_KEY, OPENAI_API_KEY…) are kept from every child either way."
        ),
    )
    allowed: list[str] = Field(default=[], description="Variables always passed on (bypass redaction by name).")
    blocked: list[str] = Field(default=[], description="Variables never passed on to a child process.")


class SecuritySettings(_Section):
    folder_trust: FolderTrustSettings = Field(default_factory=FolderTrustSettings.model_construct)
    disable_yolo_mode: bool = Field(default=False, description="Refuse the 'yolo' approval mode from every source.")
    disable_always_allow: bool = Field(
        default=False, description="Never offer 'allow always', and ignore saved always-allow rules (Gemini CLI)."
    )
    environment_variable_redaction: RedactionSettings = Field(default_factory=RedactionSettings.model_construct)
    enable_permanent_tool_approval: bool = Field(
        default=False,
        description="Offer 'allow in all future sessions' when asking about a tool (saved as a policy rule).",
    )


class AdminSettings(_Section):
    secure_mode_enabled: bool = Field(
        default=False, description="Administrators: both security.disableYoloMode and security.disableAlwaysAllow."
    )


class TelemetrySettings(_Section):
    enabled: bool = Field(default=False, description="Append local telemetry records (JSONL) to a file.")
    target: TelemetryTarget = Field(
        default="local",
        description="Only 'local' is implemented: 'otlp'/'gcp' are accepted, warned about, and written locally too.",
    )
    otlp_endpoint: str = Field(
        default="http://localhost:4317", description="Accepted for Gemini CLI's files; nothing is exported."
    )
    otlp_protocol: Literal["grpc", "http"] = Field(default="grpc", description="Accepted; nothing is exported.")
    log_prompts: bool = Field(default=True, description="Include prompt text (secrets redacted) in the records.")
    outfile: str | None = Field(default=None, description="File for 'local' telemetry output.")


class AdvancedSettings(_Section):
    excluded_env_vars: list[str] = Field(
        default_factory=lambda: ["DEBUG", "DEBUG_MODE"],
        description="Variables never taken from a project's .env file (they change the agent's own behaviour).",
    )


class SkillsSettings(_Section):
    enabled: bool = Field(default=True, description="Offer agent skills (SKILL.md folders) to the model.")
    disabled: list[str] = Field(default=[], description="Skill names (any case) not offered.")


class AgentRunSettings(_Section):
    max_time_minutes: float | None = Field(default=None, gt=0, description="The agent's time limit, in minutes.")
    max_turns: int | None = Field(default=None, ge=1, description="The agent's turn limit.")


class AgentOverride(_Section):
    """One ``agents.overrides`` entry (Gemini CLI 0.61's ``AgentOverride``)."""

    enabled: bool | None = Field(default=None, description="Offer the agent (built-in ones default to on).")
    run_config: AgentRunSettings = Field(default_factory=AgentRunSettings.model_construct)
    # ``model_config`` is pydantic's own attribute, hence the other name; only ``model`` is read from it.
    model_settings: dict[str, Any] = Field(
        default_factory=dict, alias="modelConfig", description="`model`: the model the agent runs on."
    )


class AgentsSettings(_Section):
    overrides: dict[str, AgentOverride] = Field(
        default_factory=dict, description="Per agent name: enable or disable it, change its limits or model."
    )
    browser: dict[str, Any] = Field(default_factory=dict, description="0.61's browser agent (not offered here).")


class ExperimentalSettings(_Section):
    enable_agents: bool = Field(default=True, description="Offer subagents (invoke_agent) at all.")


class LspServerSettings(_Section):
    """One ``lspServers`` entry: the language server for a language (user settings only: see code_intel/catalog)."""

    command: str | None = Field(default=None, description="The server's executable (a name on PATH or a path).")
    args: list[str] = Field(default=[], description="Arguments for command (e.g. --stdio).")
    file_patterns: list[str] = Field(default=[], description="Globs of the files it serves, e.g. *.py.")
    initialization_options: dict[str, Any] | None = Field(
        default=None, description="Sent as initializationOptions in the server's initialize request."
    )
    env: dict[str, str] = Field(default_factory=dict, description="Extra environment for the server process.")
    disabled: bool = Field(default=False, description="No server for this language, not even one found on PATH.")


class CodeIntelligenceSettings(_Section):
    enabled: bool = Field(default=True, description="Offer the lsp and rename_symbol tools when a source exists.")
    diagnostics_after_edit: bool = Field(
        default=True, description="Edit results carry the errors and warnings the edit introduced."
    )
    discover_servers: bool = Field(
        default=True, description="With no lspServers entry for a language, use a well-known server found on PATH."
    )
    diagnostics_wait_ms: int = Field(
        default=1500,
        ge=100,
        le=30000,
        description="How long an edit's result waits for the language server's new diagnostics.",
    )


class HooksConfigSettings(_Section):
    enabled: bool = Field(default=True, description="Run the hooks configured under `hooks`.")
    disabled: list[str] = Field(default=[], description="Hooks (by name, else by command) that do not run.")
    notifications: bool = Field(default=True, description="Say when a hook ran (Gemini CLI's indicator).")


class Settings(_Section):
    """Everything agent-lsp reads from settings.json. Build it with config.loader.load_settings."""

    general: GeneralSettings = Field(default_factory=GeneralSettings.model_construct)
    model: ModelSettings = Field(default_factory=ModelSettings.model_construct)
    context: ContextSettings = Field(default_factory=ContextSettings.model_construct)
    tools: ToolsSettings = Field(default_factory=ToolsSettings.model_construct)
    mcp: McpSettings = Field(default_factory=McpSettings.model_construct)
    mcp_servers: dict[str, McpServerSettings] = Field(
        default_factory=dict, description="MCP servers by name (entries of the same name replace, not merge)."
    )
    security: SecuritySettings = Field(default_factory=SecuritySettings.model_construct)
    admin: AdminSettings = Field(default_factory=AdminSettings.model_construct)
    telemetry: TelemetrySettings = Field(default_factory=TelemetrySettings.model_construct)
    advanced: AdvancedSettings = Field(default_factory=AdvancedSettings.model_construct)
    hooks: dict[str, Any] = Field(
        default_factory=dict,
        description="Hook definitions by event name; each layer's lists are concatenated (agent_lsp.hooks reads them).",
    )
    hooks_config: HooksConfigSettings = Field(default_factory=HooksConfigSettings.model_construct)
    skills: SkillsSettings = Field(default_factory=SkillsSettings.model_construct)
    agents: AgentsSettings = Field(default_factory=AgentsSettings.model_construct)
    experimental: ExperimentalSettings = Field(default_factory=ExperimentalSettings.model_construct)
    code_intelligence: CodeIntelligenceSettings = Field(default_factory=CodeIntelligenceSettings.model_construct)
    lsp_servers: dict[str, LspServerSettings] = Field(
        default_factory=dict, description="Language servers by language; read from user settings only."
    )
