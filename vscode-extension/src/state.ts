// The chat panel's model: a serialisable state the webview draws, and its small steps (the updates' reducer is
// transcript.ts).

import type { AutoApproveState } from "./autoApprove";
import type { PendingForm } from "./elicitation";
import type {
  CommandInfo,
  Location,
  ModeInfo,
  ModelInfo,
  PermissionOption,
  PlanEntry,
  SessionDescription,
  SessionInfo,
  ToolContent,
  ToolStatus,
} from "./protocol";
import type { Draft } from "./composer";
import type { RewindView } from "./rewindView";

export interface UserItem {
  kind: "user";
  id: string;
  text: string;
  messageId?: string;
  /** The message as sent (text and chips), kept for Retry; absent for messages replayed from a saved chat. */
  draft?: Draft;
  /** Sent with "Send now" into a running turn (agent/steer): the model read it mid-turn. */
  steered?: boolean;
}

export interface AgentItem {
  kind: "agent";
  id: string;
  text: string;
  /** The server's id of the message (contract 2): its chunks join this item even with other items between. */
  messageId?: string;
}

export interface ThoughtItem {
  kind: "thought";
  id: string;
  subject: string;
  text: string;
  messageId?: string;
}

/** A compression of the conversation (compaction_update): in progress, done with its summary, or failed. */
export interface CompactionItem {
  kind: "compaction";
  id: string;
  compactionId: string;
  status: "in_progress" | "completed" | "failed";
  summary: string;
  error?: string;
  tokensBefore?: number;
  tokensAfter?: number;
}

export interface ToolItem {
  kind: "tool";
  id: string;
  toolCallId: string;
  title: string;
  toolKind: string;
  status: ToolStatus;
  content: ToolContent[];
  locations: Location[];
  /** The subagent's name when the call runs one: its steps fold under the call. */
  subagent?: string;
  /** The subagent's own messages and calls (updates marked `_meta["agent-lsp"].subagent`), nested under the call. */
  children?: ChatItem[];
}

export interface NoticeItem {
  kind: "notice";
  id: string;
  severity: string;
  text: string;
}

export type ChatItem = UserItem | AgentItem | ThoughtItem | ToolItem | NoticeItem | CompactionItem;

/** A permission question waiting for the user, as the panel shows it. */
export interface PendingPermission {
  requestId: string;
  toolCallId: string;
  title: string;
  options: PermissionOption[];
  hasDiff: boolean;
  path?: string;
  /** The inline review's progress, e.g. "2 hunks · 1 accepted", while one is open. */
  status?: string;
}

/** A message sent while a turn ran: it waits here, in order, and goes out when the turn ends. */
export interface QueuedPrompt {
  id: string;
  draft: Draft;
}

export interface ChatState {
  sessionId?: string;
  /** The session's folder: paths below it are shown relative to it. */
  cwd?: string;
  title?: string;
  items: ChatItem[];
  plan: PlanEntry[];
  /** Tokens in context, the window's size, and the session's estimated cost when the server knows the price. */
  usage?: { used: number; size: number; cost?: { amount: number; currency: string }; stale?: boolean };
  modes: ModeInfo[];
  currentMode?: string;
  models: ModelInfo[];
  currentModel?: string;
  /** Whether the current model reads images (the server's promptCapabilities.image); unknown counts as yes. */
  imageInput?: boolean;
  /** The server's auto-approve switches for this session (autoApprove.ts). */
  autoApprove?: AutoApproveState;
  /** The last turn (its user message id) whose changed files were kept or reverted: the list is done. */
  changesKept?: string;
  commands: CommandInfo[];
  busy: boolean;
  progress?: string;
  permissions: PendingPermission[];
  /** MCP servers' forms waiting for the user (agent/elicit; elicitation.ts). */
  forms?: PendingForm[];
  /** Messages waiting for the running turn to end (see queue.ts). */
  queue: QueuedPrompt[];
  /** The turn was stopped or failed: the queue waits for "Send now" instead of going out by itself. */
  queuePaused: boolean;
  /** The server steers (agent/steer): "Send now" joins the running turn instead of stopping it. */
  steering?: boolean;
  sessions: SessionInfo[];
  serverStatus: "starting" | "running" | "stopped" | "failed";
  serverMessage?: string;
  /** A rewind's preview waiting for confirmation, the last rewind (undoable), text for the box (messageActions.ts). */
  rewind?: RewindView;
  /** Bumped on each change so the webview can tell stale snapshots apart. */
  revision: number;
}

export function emptyState(): ChatState {
  return {
    items: [],
    plan: [],
    modes: [],
    models: [],
    commands: [],
    busy: false,
    permissions: [],
    queue: [],
    queuePaused: false,
    sessions: [],
    serverStatus: "stopped",
    revision: 0,
  };
}

let counter = 0;
export function nextId(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

export function bump(state: ChatState, patch: Partial<ChatState>): ChatState {
  return { ...state, ...patch, revision: state.revision + 1 };
}

/** The conversation changed under the usage line (a rewind, another model): the token count waits for the next
 * answer's usage_update; the cost spent so far stays. */
export function staleUsage(state: ChatState): ChatState {
  return state.usage === undefined ? state : bump(state, { usage: { ...state.usage, stale: true } });
}

/** The user's own prompt, shown at once (the server only replays user messages when loading a session). */
export function addUserPrompt(state: ChatState, text: string, draft?: Draft, steered = false): ChatState {
  const item: UserItem = { kind: "user", id: nextId("user"), text, ...(draft ? { draft } : {}), ...(steered ? { steered } : {}) };
  return bump(state, { items: [...state.items, item] });
}

/** The message a response answered (the user message before it), as sent: what Retry sends again. */
export function promptBefore(state: ChatState, itemId: string): Draft | undefined {
  const index = state.items.findIndex((i) => i.id === itemId);
  for (let i = index - 1; i >= 0; i--) {
    const item = state.items[i];
    if (item.kind === "user") {
      return item.draft ?? { text: item.text, attachments: [] };
    }
  }
  return undefined;
}

/** The text of a message, for Copy. */
export function itemText(state: ChatState, itemId: string): string | undefined {
  const item = state.items.find((i) => i.id === itemId);
  return item !== undefined && (item.kind === "user" || item.kind === "agent") ? item.text : undefined;
}

/** A fresh transcript for a session the server described (new or loaded). */
export function startSession(state: ChatState, session: SessionDescription, title?: string): ChatState {
  return bump(state, {
    sessionId: session.sessionId,
    title,
    items: [],
    plan: [],
    usage: undefined,
    permissions: [],
    progress: undefined,
    modes: session.modes.availableModes,
    currentMode: session.modes.currentModeId,
    models: session.models.availableModels,
    currentModel: session.models.currentModelId,
    imageInput: session.promptCapabilities?.image,
    commands: session.commands,
  });
}

/** The modes, models and commands of a session the server described (loaded or resumed), transcript kept. */
export function describeSession(state: ChatState, session: SessionDescription): ChatState {
  return bump(state, {
    modes: session.modes.availableModes,
    currentMode: session.modes.currentModeId,
    models: session.models.availableModels,
    currentModel: session.models.currentModelId,
    commands: session.commands,
  });
}

/** An empty transcript for a session id seen first in an update (e.g. one a code action created). */
export function adoptSession(state: ChatState, sessionId: string): ChatState {
  return bump(state, { sessionId, title: undefined, items: [], plan: [], usage: undefined, permissions: [] });
}

/** The server died: tool calls still pending or running will never finish, so they show as failed. */
export function interruptTools(state: ChatState): ChatState {
  const items = state.items.map((item) =>
    item.kind === "tool" && (item.status === "pending" || item.status === "in_progress") ? { ...item, status: "failed" as const } : item,
  );
  return bump(state, { items });
}

export function setBusy(state: ChatState, busy: boolean, progress?: string): ChatState {
  return bump(state, { busy, progress: busy ? progress : undefined });
}

export function setProgress(state: ChatState, progress: string | undefined): ChatState {
  return bump(state, { progress });
}

export function addPermission(state: ChatState, permission: PendingPermission): ChatState {
  return bump(state, { permissions: [...state.permissions, permission] });
}

export function setPermissionStatus(state: ChatState, requestId: string, status: string | undefined): ChatState {
  return bump(state, {
    permissions: state.permissions.map((p) => (p.requestId === requestId ? { ...p, status } : p)),
  });
}

export function removePermission(state: ChatState, requestId: string): ChatState {
  return bump(state, { permissions: state.permissions.filter((p) => p.requestId !== requestId) });
}

export function setServerStatus(state: ChatState, status: ChatState["serverStatus"], message?: string): ChatState {
  return bump(state, { serverStatus: status, serverMessage: message });
}

export function setSessions(state: ChatState, sessions: SessionInfo[]): ChatState {
  return bump(state, { sessions });
}

export function setModel(state: ChatState, modelId: string): ChatState {
  return staleUsage(bump(state, { currentModel: modelId }));
}

export function addNotice(state: ChatState, severity: string, text: string): ChatState {
  return bump(state, { items: [...state.items, { kind: "notice", id: nextId("notice"), severity, text }] });
}

/** The current mode and model in the server's words ("Auto edit · gemini-2.5-pro"), for the status bar's tooltip. */
export function sessionSummary(state: ChatState): string {
  const mode = state.modes.find((m) => m.id === state.currentMode)?.name ?? state.currentMode;
  const model = state.models.find((m) => m.modelId === state.currentModel)?.name ?? state.currentModel;
  return [mode && `Mode: ${mode}`, model && `Model: ${model}`].filter(Boolean).join(" · ");
}

/** The words the status bar shows for the running turn: the last tool's title, else "Thinking…". */
export function progressText(state: ChatState): string {
  for (let i = state.items.length - 1; i >= 0; i--) {
    const item = state.items[i];
    if (item.kind === "tool" && (item.status === "in_progress" || item.status === "pending")) {
      return item.title;
    }
    if (item.kind === "thought") {
      return item.subject;
    }
    if (item.kind === "agent" || item.kind === "user") {
      break;
    }
  }
  return "Thinking…";
}
