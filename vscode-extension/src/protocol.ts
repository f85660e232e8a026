// Types of the agent-lsp LSP extension (agent/* requests, agent/update, agent/requestPermission), per docs/protocol.md.

export const METHODS = {
  newSession: "agent/newSession",
  prompt: "agent/prompt",
  loadSession: "agent/loadSession",
  listSessions: "agent/listSessions",
  setMode: "agent/setMode",
  setModel: "agent/setModel",
  findFiles: "agent/findFiles",
  rewind: "agent/rewind",
  fork: "agent/fork",
  cancel: "agent/cancel",
  /** "Send now" while a turn runs: the message joins the running turn (advertised in experimental.agent.requests). */
  steer: "agent/steer",
  update: "agent/update",
  requestPermission: "agent/requestPermission",
  /** MCP: a server's form (asked of us), the session's servers, and restarting them (docs/protocol.md). */
  elicit: "agent/elicit",
  mcpServers: "agent/mcpServers",
  mcpRestart: "agent/mcpRestart",
} as const;

export const SERVER_COMMANDS = {
  fix: "agent.fix",
  explain: "agent.explain",
  editSelection: "agent.editSelection",
  prompt: "agent.prompt",
  cancel: "agent.cancel",
} as const;

/**
 * The server's approval modes when this was written, for documentation only: the extension takes the list from
 * the session's description (`modes`), and the server judges a configured mode, naming the ones it accepts.
 */
export type ApprovalMode = "default" | "auto_edit" | "yolo" | "plan" | (string & {});

export interface TextBlock {
  type: "text";
  text: string;
}

export interface ModeInfo {
  id: string;
  name: string;
  description?: string;
}

export interface ModelInfo {
  modelId: string;
  name: string;
}

export interface CommandInfo {
  name: string;
  description: string;
  input?: { hint: string };
}

export interface NewSessionParams {
  cwd?: string;
  approvalMode?: string;
  model?: string;
}

export interface SessionDescription {
  sessionId: string;
  modes: { currentModeId: string; availableModes: ModeInfo[] };
  models: { currentModelId: string; availableModels: ModelInfo[] };
  commands: CommandInfo[];
  /** What prompts may carry (as ACP's promptCapabilities); `image: false` makes the panel refuse image chips. */
  promptCapabilities?: { image?: boolean };
}

export interface PromptParams {
  sessionId: string;
  prompt: string;
  context?: EditorContext;
}

export interface PromptResult {
  stopReason: string;
}

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface EditorContext {
  uri: string;
  range?: Range;
  selectedText?: string;
  diagnostics?: unknown[];
  instruction?: string;
}

export interface SessionInfo {
  sessionId: string;
  title?: string | null;
  cwd?: string;
  createdAt?: string;
  updatedAt?: string;
  promptCount?: number;
}

export interface ListSessionsResult {
  sessions: SessionInfo[];
  nextCursor?: string | null;
}

export interface Location {
  path: string;
  line?: number;
}

export interface DiffContent {
  type: "diff";
  path: string;
  oldText: string | null;
  newText: string;
}

export interface TextContent {
  type: "content";
  content: TextBlock;
}

export type ToolContent = DiffContent | TextContent;

export type ToolStatus = "pending" | "in_progress" | "completed" | "failed";

export interface PlanEntry {
  content: string;
  priority: string;
  status: "pending" | "in_progress" | "completed";
}

/** One choice of an ACP select config option. */
export interface ConfigSelectChoice {
  value: string;
  name: string;
  description?: string | null;
}

/** A group of choices under a header (ACP allows a select's options to be grouped). */
export interface ConfigSelectGroup {
  group: string;
  name: string;
  options: ConfigSelectChoice[];
}

/**
 * An ACP session config option. agent-lsp sends two selects: `model` (the picker's models, e.g. an
 * OpenAI-compatible endpoint's GET /v1/models list, after the agent/newSession answer) and `mode`.
 */
export interface ConfigOption {
  id: string;
  name: string;
  description?: string | null;
  category?: string | null;
  type: "select";
  currentValue: string;
  options: ConfigSelectChoice[] | ConfigSelectGroup[];
}

/** Where a subagent's own update comes from (contract 2): the call that runs it, its name, its child session. */
export interface SubagentOrigin {
  parentToolCallId: string;
  agent: string;
  childSessionId?: string;
}

/** agent-lsp's `_meta` on updates: a subagent's name on its call, or the origin on the subagent's own updates;
 * token counts on a completed compaction. */
export interface AgentMeta {
  "agent-lsp"?: { subagent?: string | SubagentOrigin; tokensBefore?: number; tokensAfter?: number };
}

export type SessionUpdate =
  | { sessionUpdate: "agent_message_chunk"; content: TextBlock; messageId?: string; _meta?: AgentMeta }
  | { sessionUpdate: "agent_thought_chunk"; content: TextBlock; messageId?: string; _meta?: AgentMeta }
  | { sessionUpdate: "user_message_chunk"; content: TextBlock; messageId?: string; _meta?: AgentMeta }
  | {
      sessionUpdate: "compaction_update";
      compactionId: string;
      status: "in_progress" | "completed" | "failed";
      summary?: TextBlock[];
      error?: string;
      _meta?: AgentMeta;
    }
  | {
      sessionUpdate: "tool_call";
      toolCallId: string;
      title: string;
      kind?: string;
      status?: ToolStatus;
      locations?: Location[];
      rawInput?: unknown;
      content?: ToolContent[];
      /** agent-lsp's mark on a subagent's call (invoke_agent), or the origin of a subagent's own call. */
      _meta?: AgentMeta;
    }
  | {
      sessionUpdate: "tool_call_update";
      toolCallId: string;
      title?: string;
      status?: ToolStatus;
      content?: ToolContent[];
      locations?: Location[];
      _meta?: AgentMeta;
    }
  | { sessionUpdate: "plan"; entries: PlanEntry[] }
  | { sessionUpdate: "usage_update"; used: number; size: number; cost?: { amount: number; currency: string } | null }
  | { sessionUpdate: "session_info_update"; title: string }
  | { sessionUpdate: "available_commands_update"; availableCommands: CommandInfo[] }
  | { sessionUpdate: "current_mode_update"; currentModeId: string }
  | { sessionUpdate: "config_option_update"; configOptions: ConfigOption[] }
  | { sessionUpdate: "notice"; severity: string; title: string; _meta?: AgentMeta };

export interface UpdateParams {
  sessionId: string;
  update: SessionUpdate;
  replay?: boolean;
}

export type PermissionKind = "allow_once" | "allow_always" | "reject_once" | "reject_always";

/**
 * One answer the server offers (ACP PermissionOption). The ids are the server's (`proceed_once`, `proceed_always`,
 * `proceed_always_server`, `proceed_always_and_save`, `reject`, …); the extension renders whatever it is offered
 * and answers with the chosen id, so a new option needs no change here.
 */
export interface PermissionOption {
  optionId: string;
  name: string;
  kind: PermissionKind;
}

export interface PermissionToolCall {
  toolCallId: string;
  title?: string;
  kind?: string;
  status?: string;
  locations?: Location[];
  rawInput?: unknown;
  content?: ToolContent[];
}

export interface RequestPermissionParams {
  sessionId: string;
  toolCall: PermissionToolCall;
  options: PermissionOption[];
}

export type PermissionOutcome = { outcome: "selected"; optionId: string } | { outcome: "cancelled" };

export interface RequestPermissionResult {
  outcome: PermissionOutcome;
  /** The proposal as the user left it in the diff review, when they edited it before accepting. */
  _meta?: { modifiedContent?: string };
}

/** The key agent-lsp reads from initializationOptions and workspace/didChangeConfiguration. */
export const CONFIG_SECTION = "agentLsp";
