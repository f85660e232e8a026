// The transcript's reducer: an agent/update becomes the chat state's next items (messages by messageId, thoughts,
// tool calls, a subagent's updates under its call, compactions), plan, usage, title, commands, mode and models.

import type { AgentMeta, ModelInfo, SessionUpdate, SubagentOrigin } from "./protocol";
import { type ChatItem, type ChatState, type CompactionItem, type ToolItem, bump, nextId } from "./state";

/** A thought chunk "**Subject**\n\nbody" shows as a collapsed entry titled by its subject. */
export function splitThought(text: string): { subject: string; body: string } {
  const match = /^\s*\*\*(.+?)\*\*\s*/s.exec(text);
  if (!match) {
    return { subject: "", body: text };
  }
  return { subject: match[1].trim(), body: text.slice(match[0].length) };
}

/** A chunk joins the item of its message: the one with its messageId, else (no id) the last item if it is of
 * the same kind; anything else starts a new item. */
function appendText(items: ChatItem[], kind: "agent" | "user", text: string, messageId?: string): ChatItem[] {
  const at = messageId !== undefined ? findLast(items, (i) => i.kind === kind && i.messageId === messageId) : items.length - 1;
  const item = items[at];
  if (item !== undefined && item.kind === kind && (messageId === undefined || item.messageId === messageId)) {
    return replaceAt(items, at, { ...item, text: item.text + text });
  }
  return [...items, { kind, id: nextId(kind), text, ...(messageId !== undefined ? { messageId } : {}) }];
}

function appendThought(items: ChatItem[], text: string, messageId?: string): ChatItem[] {
  const last = items[items.length - 1];
  const { subject, body } = splitThought(text);
  // A new subject starts a new thought; a chunk without one continues the current thought (of the same message).
  if (last !== undefined && last.kind === "thought" && subject === "" && (messageId === undefined || last.messageId === messageId)) {
    return replaceAt(items, items.length - 1, { ...last, text: last.text + body });
  }
  const id = messageId !== undefined ? { messageId } : {};
  return [...items, { kind: "thought", id: nextId("thought"), subject: subject || "Thinking", text: body, ...id }];
}

function findLast(items: ChatItem[], match: (item: ChatItem) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) {
    if (match(items[i])) return i;
  }
  return -1;
}

function replaceAt(items: ChatItem[], index: number, item: ChatItem): ChatItem[] {
  const copy = [...items];
  copy[index] = item;
  return copy;
}

function textOf(blocks: unknown): string {
  return Array.isArray(blocks)
    ? blocks.map((b: unknown) => (isRecord(b) && typeof b.text === "string" ? b.text : "")).filter(Boolean).join("\n\n")
    : "";
}

/** compaction_update: one item per compactionId, its summary and token counts when it completes. */
function upsertCompaction(items: ChatItem[], update: Extract<SessionUpdate, { sessionUpdate: "compaction_update" }>): ChatItem[] {
  const at = findLast(items, (i) => i.kind === "compaction" && i.compactionId === update.compactionId);
  const old = at >= 0 ? (items[at] as CompactionItem) : undefined;
  const tokens = update._meta?.["agent-lsp"];
  const item: CompactionItem = {
    kind: "compaction",
    id: old?.id ?? nextId("compaction"),
    compactionId: update.compactionId,
    status: update.status,
    summary: textOf(update.summary) || (old?.summary ?? ""),
    ...(update.error ? { error: update.error } : {}),
    ...(typeof tokens?.tokensBefore === "number" ? { tokensBefore: tokens.tokensBefore } : {}),
    ...(typeof tokens?.tokensAfter === "number" ? { tokensAfter: tokens.tokensAfter } : {}),
  };
  return at >= 0 ? replaceAt(items, at, item) : [...items, item];
}

/** The server's mark on a subagent's call (`_meta["agent-lsp"].subagent`, its name), as a ToolItem field. */
function subagentOf(meta: AgentMeta | undefined): { subagent?: string } {
  const name = meta?.["agent-lsp"]?.subagent;
  return typeof name === "string" ? { subagent: name } : {};
}

/** The origin of a subagent's own update (`_meta["agent-lsp"].subagent = {parentToolCallId, agent, …}`). */
export function originOf(update: SessionUpdate): SubagentOrigin | undefined {
  const mark = (update as { _meta?: AgentMeta })._meta?.["agent-lsp"]?.subagent;
  return isRecord(mark) && typeof mark.parentToolCallId === "string" ? (mark as unknown as SubagentOrigin) : undefined;
}

function upsertTool(items: ChatItem[], toolCallId: string, patch: (tool: ToolItem) => ToolItem): ChatItem[] {
  const index = items.findIndex((i) => i.kind === "tool" && i.toolCallId === toolCallId);
  if (index < 0) {
    const fresh: ToolItem = {
      kind: "tool",
      id: nextId("tool"),
      toolCallId,
      title: toolCallId,
      toolKind: "other",
      status: "pending",
      content: [],
      locations: [],
    };
    return [...items, patch(fresh)];
  }
  const copy = [...items];
  copy[index] = patch(items[index] as ToolItem);
  return copy;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A select's choices as models, groups flattened; items that are not a choice are left out, as ACP asks. */
function modelChoices(options: unknown): ModelInfo[] {
  if (!Array.isArray(options)) {
    return [];
  }
  const items = options.flatMap((item: unknown) => (isRecord(item) && Array.isArray(item.options) ? item.options : [item]));
  return items.flatMap((item: unknown) =>
    isRecord(item) && typeof item.value === "string"
      ? [{ modelId: item.value, name: typeof item.name === "string" ? item.name : item.value }]
      : [],
  );
}

/**
 * A config_option_update: the `model` select becomes the picker's models (how the server sends an endpoint's own
 * list after answering agent/newSession), the `mode` select's value the current mode. Other option ids, and
 * options not shaped as a select, change nothing; the payload is checked because it comes off the wire.
 */
function applyConfigOptions(state: ChatState, configOptions: unknown): ChatState {
  if (!Array.isArray(configOptions)) {
    return state;
  }
  const patch: Partial<ChatState> = {};
  for (const option of configOptions as unknown[]) {
    if (!isRecord(option) || typeof option.currentValue !== "string") {
      continue;
    }
    if (option.id === "model") {
      const models = modelChoices(option.options);
      if (models.length > 0) {
        patch.models = models;
        patch.currentModel = option.currentValue;
      }
    } else if (option.id === "mode") {
      patch.currentMode = option.currentValue;
    }
  }
  return Object.keys(patch).length > 0 ? bump(state, patch) : state;
}

/** The transcript after an update that adds to it (chunks, tool calls, notices, compactions); undefined: not one. */
function applyToItems(items: ChatItem[], update: SessionUpdate): ChatItem[] | undefined {
  switch (update.sessionUpdate) {
    case "agent_message_chunk":
      return appendText(items, "agent", update.content.text, update.messageId);
    case "user_message_chunk":
      return appendText(items, "user", update.content.text, update.messageId);
    case "agent_thought_chunk":
      return appendThought(items, update.content.text, update.messageId);
    case "tool_call":
      return upsertTool(items, update.toolCallId, (tool) => ({
        ...tool,
        title: update.title || tool.title,
        toolKind: update.kind ?? tool.toolKind,
        status: update.status ?? tool.status,
        locations: update.locations ?? tool.locations,
        content: update.content ?? tool.content,
        ...subagentOf(update._meta),
      }));
    case "tool_call_update":
      return upsertTool(items, update.toolCallId, (tool) => ({
        ...tool,
        title: update.title ?? tool.title,
        status: update.status ?? tool.status,
        content: update.content ?? tool.content,
        locations: update.locations ?? tool.locations,
      }));
    case "notice":
      return [...items, { kind: "notice", id: nextId("notice"), severity: update.severity, text: update.title }];
    case "compaction_update":
      return upsertCompaction(items, update);
    default:
      return undefined;
  }
}

/** A subagent's update goes under its parent call (the call is made for it when the parent is not seen yet). */
function applyNested(state: ChatState, origin: SubagentOrigin, update: SessionUpdate): ChatState {
  const items = upsertTool(state.items, origin.parentToolCallId, (tool) => {
    const children = applyToItems(tool.children ?? [], update);
    return children === undefined ? tool : { ...tool, subagent: tool.subagent ?? origin.agent, children };
  });
  return bump(state, { items });
}

/** The state after one agent/update for the session the panel shows. */
export function applyUpdate(state: ChatState, update: SessionUpdate): ChatState {
  const origin = originOf(update);
  if (origin !== undefined) {
    return applyNested(state, origin, update); // the child's plan, usage and title are not the chat's
  }
  const items = applyToItems(state.items, update);
  if (items !== undefined) {
    const usage = compactedUsage(state.usage, update);
    return bump(state, { items, ...(usage !== state.usage ? { usage } : {}) });
  }
  switch (update.sessionUpdate) {
    case "plan":
      return bump(state, { plan: update.entries });
    case "usage_update":
      return bump(state, {
        usage: { used: update.used, size: update.size, ...(update.cost ? { cost: update.cost } : {}) },
      });
    case "session_info_update":
      return bump(state, { title: update.title });
    case "available_commands_update":
      return bump(state, { commands: update.availableCommands });
    case "current_mode_update":
      return bump(state, { currentMode: update.currentModeId });
    case "config_option_update":
      return applyConfigOptions(state, update.configOptions);
    default:
      return state;
  }
}

/** A completed compaction says how many tokens are left in context: the usage line follows it at once. */
function compactedUsage(usage: ChatState["usage"], update: SessionUpdate): ChatState["usage"] {
  const after = update.sessionUpdate === "compaction_update" && update.status === "completed" ? update._meta?.["agent-lsp"]?.tokensAfter : undefined;
  return usage !== undefined && typeof after === "number" ? { ...usage, used: after, stale: false } : usage;
}


