// Messages between the chat webview and the extension (both directions), shared by both sides.

import { type AutoKind, type AutoScope, isAutoKind, isAutoScope } from "./autoApprove";
import { type Attachment, parseAttachments } from "./composer";
import { type ElicitResult, parseFormAnswer } from "./elicitation";
import type { MentionCandidate } from "./mentions";
import { MESSAGE_ACTION_TYPES, type MessageActionMessage, parseMessageAction } from "./messageActions";
import type { ChatState } from "./state";

export type FromWebview =
  | { type: "ready" }
  | { type: "send"; text: string; attachments?: Attachment[] }
  /** Stop the running turn and send this next: a queued message (`id`) or the composer's draft. */
  | { type: "sendNow"; id?: string; text?: string; attachments?: Attachment[] }
  | { type: "queueRemove"; id: string }
  /** Per-message actions, by transcript item id (Rewind, Edit and Fork: messageActions.ts). */
  | { type: "retry"; itemId: string }
  | MessageActionMessage
  | { type: "copy"; itemId: string }
  /** The diff of a file the last turn changed (before the turn ↔ now). */
  | { type: "openChange"; path: string }
  | { type: "cancel" }
  | { type: "newChat" }
  | { type: "listSessions" }
  | { type: "loadSession"; sessionId: string }
  | { type: "setMode"; modeId: string }
  | { type: "setModel"; modelId: string }
  | { type: "permission"; requestId: string; optionId: string }
  /** An MCP server's form answered (elicitation.ts). */
  | { type: "elicit"; requestId: string; result: ElicitResult }
  | { type: "reviewDiff"; requestId: string }
  | { type: "openLocation"; path: string; line?: number }
  | { type: "restartServer" }
  /** The @ picker: the text typed after @ (answered by mentionResults with the same seq), and the row picked. */
  | { type: "mentionQuery"; query: string; seq: number }
  | { type: "mentionPick"; candidate: MentionCandidate }
  /** An auto-approve switch to a scope (autoApprove.ts); the changed-files list's Keep all / Revert all. */
  | { type: "autoApprove"; kind: AutoKind; scope: AutoScope }
  | { type: "keepAll" }
  | { type: "revertAll" };

export type ToWebview =
  | { type: "state"; state: ChatState }
  | { type: "mentionResults"; seq: number; items: MentionCandidate[] }
  /** A chip for the composer: a picked @ row, or the editor's "Add Selection to Chat". */
  | { type: "attach"; attachment: Attachment }
  /** A command moved the focus to the composer (and opened the @ picker). */
  | { type: "focusComposer"; picker: boolean };

const KNOWN = new Set([
  "ready",
  "send",
  "sendNow",
  "queueRemove",
  "retry",
  "copy",
  "openChange",
  "cancel",
  "newChat",
  "listSessions",
  "loadSession",
  "setMode",
  "setModel",
  "permission",
  "elicit",
  "reviewDiff",
  "openLocation",
  "restartServer",
  "mentionQuery",
  "mentionPick",
  "autoApprove",
  "keepAll",
  "revertAll",
]);
const MENTION_KINDS = new Set(["file", "folder", "symbol", "problems", "selection", "terminal", "url", "resource"]);

/** A webview message checked for shape; anything else (a compromised or stale page) is dropped. */
export function parseWebviewMessage(raw: unknown): FromWebview | undefined {
  if (typeof raw !== "object" || raw === null) {
    return undefined;
  }
  const msg = raw as Record<string, unknown>;
  if (typeof msg.type === "string" && MESSAGE_ACTION_TYPES.has(msg.type)) {
    return parseMessageAction(msg);
  }
  if (typeof msg.type !== "string" || !KNOWN.has(msg.type)) {
    return undefined;
  }
  const str = (key: string): boolean => typeof msg[key] === "string";
  switch (msg.type) {
    case "send": {
      const attachments = parseAttachments(msg.attachments);
      return str("text") && attachments !== undefined ? { type: "send", text: msg.text as string, attachments } : undefined;
    }
    case "sendNow": {
      const attachments = parseAttachments(msg.attachments);
      if (str("id")) {
        return { type: "sendNow", id: msg.id as string };
      }
      return str("text") && attachments !== undefined ? { type: "sendNow", text: msg.text as string, attachments } : undefined;
    }
    case "queueRemove":
      return str("id") ? (msg as FromWebview) : undefined;
    case "retry":
    case "copy":
      return str("itemId") ? (msg as FromWebview) : undefined;
    case "openChange":
      return str("path") ? (msg as FromWebview) : undefined;
    case "mentionQuery":
      return str("query") && typeof msg.seq === "number" ? (msg as FromWebview) : undefined;
    case "mentionPick": {
      const c = msg.candidate as Record<string, unknown> | undefined;
      const ok = typeof c === "object" && c !== null && MENTION_KINDS.has(c.kind as string) && typeof c.label === "string" && typeof c.ref === "string";
      return ok ? { type: "mentionPick", candidate: { kind: c.kind, label: c.label, ref: c.ref } as MentionCandidate } : undefined;
    }
    case "autoApprove":
      return isAutoKind(msg.kind) && isAutoScope(msg.scope) ? { type: "autoApprove", kind: msg.kind, scope: msg.scope } : undefined;
    case "loadSession":
      return str("sessionId") ? (msg as FromWebview) : undefined;
    case "setMode":
      return str("modeId") ? (msg as FromWebview) : undefined;
    case "setModel":
      return str("modelId") ? (msg as FromWebview) : undefined;
    case "permission":
      return str("requestId") && str("optionId") ? (msg as FromWebview) : undefined;
    case "reviewDiff":
      return str("requestId") ? (msg as FromWebview) : undefined;
    case "elicit": {
      const result = typeof msg.result === "object" && msg.result !== null ? parseFormAnswer(msg.result as Record<string, unknown>) : undefined;
      return str("requestId") && result !== undefined ? { type: "elicit", requestId: msg.requestId as string, result } : undefined;
    }
    case "openLocation":
      return str("path") && (msg.line === undefined || typeof msg.line === "number") ? (msg as FromWebview) : undefined;
    default:
      return msg as FromWebview;
  }
}
